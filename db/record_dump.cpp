// Decodes and checks every record of a database with format.hpp's and block_codec.hpp's decoders.
#include "db/record_dump.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "db/block_codec.hpp"
#include "db/db_error.hpp"
#include "db/format.hpp"
#include "db/lmdb_env.hpp"
#include "db/store.hpp"

namespace kalah {
namespace {

using LevelKey = std::tuple<int, int, int>;  // rule-set code, m, n

LevelKey level_of(TableId t, int n) {
  return {format::rules_code(t.rules), t.m, n};
}

std::string level_name(TableId t, int n) {
  return to_string(t) + " level " + std::to_string(n);
}

// Decodes one record; `levels` holds the level records met so far (they sort before the groups).
class Decoder {
 public:
  Decoder(const std::string& path, const DumpOptions& options) : path_(path), options_(options) {}

  DumpRecord decode(std::string_view key, std::string_view value) {
    DumpRecord r{std::string(key), value.size(), HeaderDump{0}};
    const auto k = format::decode_key(key);
    if (!k) fail(key, "unknown key", "not a key of this format");
    if (!seen_header_ && k->tag != format::kHeader)
      throw DbError(path_ + ": not a kalah database (LMDB environment without a kalah header)");
    switch (k->tag) {
      case format::kHeader:
        r.fields = header(key, value);
        break;
      case format::kTable:
        r.fields = table(key, *k, value);
        break;
      case format::kLevel:
        r.fields = level(key, *k, value);
        break;
      case format::kGroup:
        r.fields = group(key, *k, value);
        break;
      case format::kBook:
        r.fields = book(key, *k, value);
        break;
    }
    return r;
  }

  void finish() const {
    if (!seen_header_)
      throw DbError(path_ + ": not a kalah database (LMDB environment without a kalah header)");
  }

 private:
  [[noreturn]] void fail(std::string_view key, const std::string& what,
                         const std::string& reason) const {
    throw DbError(path_ + ": record " + key_hex(key) + " (" + what + "): " + reason);
  }

  HeaderDump header(std::string_view key, std::string_view value) {
    const auto version = format::decode_header(value);
    if (!version) fail(key, "header", "bad header record (not a kalah database)");
    if (*version > format::kVersion)
      fail(key, "header",
           "database format version " + std::to_string(*version) +
               " is newer than this program's (" + std::to_string(format::kVersion) + ")");
    seen_header_ = true;
    return {*version};
  }

  TableDump table(std::string_view key, const format::KeyFields& k, std::string_view value) const {
    const std::string what = "table record of " + to_string(k.table);
    const auto rec = format::decode_table(value);
    if (!rec) fail(key, what, "corrupt table record");
    if (!(rec->table == k.table)) fail(key, what, "names another table, " + to_string(rec->table));
    return {rec->table, rec->format_version, rec->complete_through};
  }

  LevelDump level(std::string_view key, const format::KeyFields& k, std::string_view value) {
    const std::string what = "level record of " + level_name(k.table, k.n);
    const auto meta = format::decode_level(k.table, k.n, value);
    if (!meta) fail(key, what, "corrupt level record");
    if (meta->entries != level_entries(k.table.m, k.n))
      fail(key, what, "corrupt level record (wrong entry count)");
    levels_[level_of(k.table, k.n)] = *meta;
    LevelDump d{k.table, k.n, *meta, std::nullopt, std::nullopt};
    if (meta->bound() && !options_.without_builds) {
      d.build = meta->build;
      d.record_checksum = format::stored_level_record_checksum(value);
    }
    if (options_.without_builds) d.meta.build = 0;
    return d;
  }

  GroupDump group(std::string_view key, const format::KeyFields& k, std::string_view value) const {
    const std::string level = level_name(k.table, k.n);
    const std::string what = "block group " + std::to_string(k.group) + " of " + level;
    const auto it = levels_.find(level_of(k.table, k.n));
    if (it == levels_.end()) fail(key, what, "the level has no level record");
    const LevelMeta& meta = it->second;
    const std::uint64_t first = std::uint64_t(k.group) * meta.blocks_per_group;
    if (first >= meta.blocks)
      fail(key, what,
           "beyond the level's " + std::to_string(meta.blocks) + " blocks, " +
               std::to_string(meta.blocks_per_group) + " a group");
    const std::uint32_t count =
        std::uint32_t(std::min<std::uint64_t>(meta.blocks_per_group, meta.blocks - first));
    const auto offsets = format::group_offsets(value);
    if (!offsets || offsets->size() != std::size_t(count) + 1)
      fail(key, what,
           "corrupt block group (its count or offsets are inconsistent; the level's record says " +
               std::to_string(count) + " blocks)");
    GroupDump d{k.table, k.n, k.group, {}};
    for (std::uint32_t j = 0; j < count; ++j) {
      const std::uint32_t b = std::uint32_t(first + j);
      const std::string block_what = "block " + std::to_string(b) + " of " + level;
      const std::string_view stored =
          value.substr((*offsets)[j], (*offsets)[j + 1] - (*offsets)[j]);
      const auto header = block_header(stored);
      if (!header) fail(key, block_what, "corrupt block (value shorter than its header)");
      const std::uint64_t want = block_size(meta.entries, meta.block_entries, b);
      if (header->entries != want)
        fail(key, block_what,
             "corrupt block (declares " + std::to_string(header->entries) + " entries, expected " +
                 std::to_string(want) + ")");
      const BlockPlace place{k.table, k.n, b, meta.build};
      if (block_checksum(stored, meta.bound() ? &place : nullptr) != header->checksum)
        fail(key, block_what,
             meta.bound() ? "corrupt or misplaced block (its checksum over its table, level, "
                            "index, build and bytes does not match)"
                          : "corrupt block (checksum of the stored bytes does not match)");
      BlockDump bd{b,
                   (*offsets)[j],
                   std::uint32_t(stored.size()),
                   header->checksum,
                   header->entries,
                   header->codec,
                   header->values_checksum,
                   block_checksum(stored, nullptr)};
      if (options_.without_builds) bd.checksum.reset();
      d.blocks.push_back(bd);
    }
    return d;
  }

  BookDump book(std::string_view key, const format::KeyFields& k, std::string_view value) const {
    const std::string what =
        "book entry of pits " + book_pits_text(k.pits) + " of " + to_string(k.table);
    const format::BookValue v = format::decode_book_value(key, value);
    if (v.status == format::BookValue::kCorrupt)
      fail(key, what, "corrupt book entry (its checksum over its key and value does not match)");
    return {k.table, k.pits, v.margin, v.status == format::BookValue::kChecked,
            format::book_value_checksum(value)};
  }

  const std::string& path_;
  const DumpOptions& options_;
  bool seen_header_ = false;
  std::map<LevelKey, LevelMeta> levels_;
};

}  // namespace

std::string key_hex(std::string_view key) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : key) {
    out += kDigits[std::uint8_t(c) >> 4];
    out += kDigits[std::uint8_t(c) & 15];
  }
  return out;
}

void dump_records(const std::string& path, const DumpOptions& options,
                  const std::function<void(const DumpRecord&)>& fn) {
  const LmdbEnv env(path, false, StoreOptions{}.map_size);
  const LmdbTxn txn(env, false);
  Decoder decoder(path, options);
  txn.scan("", [&](std::string_view key, std::string_view value) {
    fn(decoder.decode(key, value));
    return true;
  });
  decoder.finish();
}

}  // namespace kalah
