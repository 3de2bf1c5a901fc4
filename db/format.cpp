// Encoders and decoders of the keys and record values laid out in db/FORMAT.md.
#include "db/format.hpp"

#include "db/xxhash64.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace kalah {

std::string to_string(TableId t) {
  return std::string(rules_name(t.rules)) + " m=" + std::to_string(t.m);
}

std::string build_name(std::uint64_t build) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(build));
  return text;
}

namespace format {
namespace {

void push_be(Key& k, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) k.bytes[k.size++] = std::uint8_t(v >> (8 * i));
}

Key table_prefix(Tag tag, TableId t) {
  if (t.m < 1 || t.m > kMaxPits) throw std::invalid_argument("table m must be 1..12");
  Key k;
  k.bytes[k.size++] = tag;
  k.bytes[k.size++] = rules_code(t.rules);
  k.bytes[k.size++] = std::uint8_t(t.m);
  return k;
}

void check_level(int n) {
  if (n < 0 || n > kMaxLevel)
    throw std::invalid_argument("level n must be 0.." + std::to_string(kMaxLevel));
}

}  // namespace

std::uint8_t rules_code(Rules r) {
  return std::uint8_t(r);
}

Key header_key() {
  Key k;
  k.bytes[k.size++] = kHeader;
  return k;
}

Key table_key(TableId t) {
  return table_prefix(kTable, t);
}

Key level_key(TableId t, int n) {
  check_level(n);
  Key k = table_prefix(kLevel, t);
  push_be(k, std::uint64_t(n), 1);
  return k;
}

Key group_prefix(TableId t, int n) {
  check_level(n);
  Key k = table_prefix(kGroup, t);
  push_be(k, std::uint64_t(n), 1);
  return k;
}

Key group_key(TableId t, int n, std::uint32_t g) {
  Key k = group_prefix(t, n);
  push_be(k, g, 4);
  return k;
}

Key book_prefix(TableId t) {
  return table_prefix(kBook, t);
}

Key book_key(TableId t, std::span<const Stones> pits) {
  if (pits.size() != std::size_t(2 * t.m))
    throw std::invalid_argument("book key needs exactly 2m pit counts");
  Key k = book_prefix(t);
  for (Stones s : pits) push_be(k, s, 2);
  return k;
}

std::optional<KeyFields> decode_key(std::string_view key) {
  if (key.empty() || std::uint8_t(key[0]) > kBook) return std::nullopt;
  KeyFields f;
  f.tag = Tag(key[0]);
  if (f.tag == kHeader) return key.size() == 1 ? std::optional(f) : std::nullopt;
  if (key.size() < 3) return std::nullopt;
  const auto rules = rules_from_code(std::uint8_t(key[1]));
  const int m = std::uint8_t(key[2]);
  if (!rules || m < 1 || m > kMaxPits) return std::nullopt;
  f.table = {*rules, m};
  const std::size_t want = f.tag == kTable   ? 3
                           : f.tag == kLevel ? 4
                           : f.tag == kGroup ? 8
                                             : 3 + 4 * std::size_t(m);
  if (key.size() != want) return std::nullopt;
  if (f.tag == kLevel || f.tag == kGroup) f.n = int(get_be(key, 3, 1));
  if (f.tag == kGroup) f.group = std::uint32_t(get_be(key, 4, 4));
  if (f.tag == kBook)
    for (int i = 0; i < 2 * m; ++i)
      f.pits.push_back(Stones(get_be(key, 3 + 2 * std::size_t(i), 2)));
  return f;
}

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char(std::uint8_t(v >> (8 * i))));
}

std::uint64_t get_le(std::string_view v, std::size_t offset, int bytes) {
  std::uint64_t r = 0;
  for (int i = bytes - 1; i >= 0; --i) r = (r << 8) | std::uint8_t(v[offset + i]);
  return r;
}

std::uint64_t get_be(std::string_view v, std::size_t offset, int bytes) {
  std::uint64_t r = 0;
  for (int i = 0; i < bytes; ++i) r = (r << 8) | std::uint8_t(v[offset + i]);
  return r;
}

std::string encode_header() {
  std::string out(kMagic, sizeof kMagic);
  put_le(out, kVersion, 4);
  put_le(out, 0, 4);
  return out;
}

std::optional<std::uint32_t> decode_header(std::string_view v) {
  if (v.size() != kHeaderBytes || std::memcmp(v.data(), kMagic, sizeof kMagic) != 0)
    return std::nullopt;
  return std::uint32_t(get_le(v, 8, 4));
}

std::string encode_table(const TableRecord& r) {
  std::string out;
  put_le(out, kVersion, 4);  // the writer's version, whatever r.format_version says
  put_le(out, rules_code(r.table.rules), 1);
  put_le(out, std::uint64_t(r.table.m), 1);
  if (out.size() != kTableCompleteThroughByte) throw std::logic_error("table record layout");
  put_le(out, std::uint16_t(std::int16_t(r.complete_through)), 2);
  return out;
}

std::optional<TableRecord> decode_table(std::string_view v) {
  if (v.size() != kTableBytes) return std::nullopt;
  const auto rules = rules_from_code(std::uint8_t(get_le(v, 4, 1)));
  const int m = int(get_le(v, 5, 1));
  const int through = int(std::int16_t(get_le(v, kTableCompleteThroughByte, 2)));
  if (!rules || m < 1 || m > kMaxPits || through < -1 || through > kMaxLevel) return std::nullopt;
  return TableRecord{{*rules, m}, through, std::uint32_t(get_le(v, 0, 4))};
}

namespace {

// XXH64 of the level key of (t, n) and the record's bytes before its checksum.
std::uint64_t level_record_checksum(TableId t, int n, std::string_view record) {
  const Key key = level_key(t, n);
  Xxh64Stream h;
  h.update(key.bytes.data(), key.size);
  h.update(record.data(), kLevelBytes - 8);
  return h.digest();
}

}  // namespace

std::string encode_level(TableId t, int n, const LevelMeta& m) {
  std::string out;
  put_le(out, m.entries, 8);
  put_le(out, m.checksum, 8);
  put_le(out, kVersion, 4);
  put_le(out, m.block_entries, 4);
  put_le(out, m.compressed_bytes, 8);
  put_le(out, m.blocks, 4);
  put_le(out, m.blocks_per_group, 4);
  if (out.size() != kLevelCompleteByte) throw std::logic_error("level record layout");
  put_le(out, m.complete ? 1 : 0, 1);
  put_le(out, std::uint64_t(m.codec), 1);
  put_le(out, std::uint64_t(m.zstd_level), 1);
  put_le(out, 0, 5);
  put_le(out, m.build, 8);
  put_le(out, level_record_checksum(t, n, out), 8);
  return out;
}

std::optional<LevelMeta> decode_level(TableId t, int n, std::string_view v) {
  if (v.size() != kLevelBytes && v.size() != kLevelBytesUnbound) return std::nullopt;
  LevelMeta m{};
  m.entries = get_le(v, 0, 8);
  m.checksum = get_le(v, 8, 8);
  m.format_version = std::uint32_t(get_le(v, 16, 4));
  m.block_entries = std::uint32_t(get_le(v, 20, 4));
  m.compressed_bytes = get_le(v, 24, 8);
  m.blocks = std::uint32_t(get_le(v, 32, 4));
  m.blocks_per_group = std::uint32_t(get_le(v, 36, 4));
  m.complete = get_le(v, kLevelCompleteByte, 1) == 1;
  m.codec = int(get_le(v, 41, 1));
  m.zstd_level = int(std::int8_t(get_le(v, 42, 1)));
  // A record is as long as its version says (48 bytes: 1 and 2; 64: from kFirstBoundFormat), and
  // a bound one's checksum ties it to its key and names a build.
  if (v.size() == kLevelBytesUnbound) {
    if (m.format_version < 1 || m.bound()) return std::nullopt;
  } else {
    m.build = get_le(v, 48, 8);
    if (!m.bound() || m.format_version > kVersion || get_le(v, 43, 5) != 0 || m.build == 0 ||
        get_le(v, 56, 8) != level_record_checksum(t, n, v))
      return std::nullopt;
  }
  if (m.block_entries == 0 || m.blocks_per_group == 0 ||
      m.blocks != block_count(m.entries, m.block_entries))
    return std::nullopt;
  return m;
}

std::uint64_t stored_level_record_checksum(std::string_view v) {
  return v.size() == kLevelBytes ? get_le(v, 56, 8) : 0;
}

std::string encode_group(const std::vector<std::string>& blocks, std::size_t first,
                         std::size_t count) {
  std::string out;
  put_le(out, count, 4);
  put_le(out, 0, 4);
  std::uint64_t offset = 8 + 4 * (count + 1);
  for (std::size_t j = 0; j <= count; ++j) {
    put_le(out, offset, 4);
    if (j < count) offset += blocks[first + j].size();
  }
  if (offset >> 32) throw std::length_error("block group larger than 4 GiB");
  for (std::size_t j = 0; j < count; ++j) out += blocks[first + j];
  return out;
}

namespace {

// Whether a group record holds `count` blocks, its reserved field is 0 and its first and last
// offsets are the end of the offset table and the end of the record.
bool group_table_ok(std::string_view group, std::uint32_t count) {
  const std::uint64_t table_end = 8 + 4 * (std::uint64_t(count) + 1);
  return group.size() >= table_end && get_le(group, 0, 4) == count && get_le(group, 4, 4) == 0 &&
         get_le(group, 8, 4) == table_end &&
         get_le(group, 8 + 4 * std::size_t(count), 4) == group.size();
}

}  // namespace

std::optional<std::string_view> block_in_group(std::string_view group, std::uint32_t j,
                                               std::uint32_t count) {
  const std::uint64_t table_end = 8 + 4 * (std::uint64_t(count) + 1);
  if (j >= count || !group_table_ok(group, count)) return std::nullopt;
  const std::uint64_t begin = get_le(group, 8 + 4 * std::size_t(j), 4);
  const std::uint64_t end = get_le(group, 12 + 4 * std::size_t(j), 4);
  if (begin < table_end || end < begin || end > group.size()) return std::nullopt;
  return group.substr(begin, end - begin);
}

std::optional<std::vector<std::uint32_t>> group_offsets(std::string_view group) {
  if (group.size() < 8) return std::nullopt;
  const std::uint32_t count = std::uint32_t(get_le(group, 0, 4));
  if (!group_table_ok(group, count)) return std::nullopt;
  std::vector<std::uint32_t> offsets(std::size_t(count) + 1);
  for (std::size_t j = 0; j <= count; ++j) {
    offsets[j] = std::uint32_t(get_le(group, 8 + 4 * j, 4));
    if (j > 0 && offsets[j] < offsets[j - 1]) return std::nullopt;
  }
  return offsets;
}

namespace {

constexpr std::size_t kBookMarginBytes = 2, kBookBytes = 10;

std::uint64_t book_checksum(std::string_view key, std::string_view margin) {
  Xxh64Stream h;
  h.update(key.data(), key.size());
  h.update(margin.data(), margin.size());
  return h.digest();
}

}  // namespace

std::string encode_book_value(std::string_view key, int margin) {
  std::string out;
  put_le(out, std::uint16_t(std::int16_t(margin)), 2);
  put_le(out, book_checksum(key, out), 8);
  return out;
}

BookValue decode_book_value(std::string_view key, std::string_view v) {
  const int margin = v.size() >= 2 ? int(std::int16_t(get_le(v, 0, 2))) : 0;
  if (v.size() == kBookMarginBytes) return {BookValue::kUnchecked, margin};
  if (v.size() != kBookBytes || get_le(v, 2, 8) != book_checksum(key, v.substr(0, 2)))
    return {BookValue::kCorrupt, 0};
  return {BookValue::kChecked, margin};
}

std::uint64_t book_value_checksum(std::string_view v) {
  return v.size() == kBookBytes ? get_le(v, 2, 8) : 0;
}

}  // namespace format
}  // namespace kalah
