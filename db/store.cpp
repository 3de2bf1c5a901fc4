// Store: levels written in one transaction each, read back and verified block by block.
#include "db/store.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <random>
#include <thread>

#include "db/arrangements.hpp"
#include "db/block_codec.hpp"
#include "db/for_each_index.hpp"
#include "db/format.hpp"
#include "db/index.hpp"
#include "db/lmdb_env.hpp"
#include "db/storage_order.hpp"
#include "db/store_header.hpp"
#include "db/xxhash64.hpp"

namespace kalah {
namespace {

std::string block_where(const std::string& level_where, std::uint32_t block) {
  return level_where + " block " + std::to_string(block);
}

// Values of storage ranks [first, first + out.size()) of level n, gathered from `values` (in
// LevelIndex order).
void gather(const LevelIndex& index, const StorageOrder& order, int n, const ResidentLevel& values,
            std::uint64_t first, std::span<std::int8_t> out) {
  constexpr std::size_t kAhead = 64;  // reads in flight: prefetched lines stay in the cache
  std::vector<std::uint64_t> ranks(out.size());
  index_ranks_of_storage(index, order, n, first, ranks);
  for (std::size_t j = 0; j < std::min(kAhead, out.size()); ++j)
    __builtin_prefetch(values.address(ranks[j]));
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (j + kAhead < out.size()) __builtin_prefetch(values.address(ranks[j + kAhead]));
    out[j] = std::int8_t(values.future(ranks[j]));
  }
}

// Level n as compressed blocks of block_entries values in storage order, on up to `threads`
// threads.
std::vector<std::string> compress_blocks(int m, int n, const ResidentLevel& values,
                                         std::uint64_t entries, std::uint32_t block_entries,
                                         int zstd_level, unsigned threads) {
  const LevelIndex index(m, n);
  const StorageOrder order(m, n);
  const std::size_t blocks = block_count(entries, block_entries);
  std::vector<std::string> out(blocks);
  for_each_index(blocks, threads, [&](std::size_t b) {
    const std::uint64_t first = std::uint64_t(b) * block_entries;
    std::vector<std::int8_t> raw(std::size_t(block_size(entries, block_entries, b)));
    gather(index, order, n, values, first, raw);
    out[b] = encode_block(raw, zstd_level);
  });
  return out;
}

std::optional<LevelMeta> read_meta(const LmdbTxn& txn, TableId t, int n, const std::string& where) {
  const auto v = txn.get(format::level_key(t, n).view());
  if (!v) return std::nullopt;
  auto meta = format::decode_level(t, n, *v);
  if (!meta) throw DbError(where + ": corrupt level record");
  return meta;
}

// The record of level n when the level is complete and has the size of its board; throws DbError
// otherwise.
LevelMeta complete_meta(const LmdbTxn& txn, TableId t, int n, const std::string& where) {
  const auto meta = read_meta(txn, t, n, where);
  if (!meta || !meta->complete) throw DbError(where + ": level not in the database");
  if (meta->entries != level_entries(t.m, n))
    throw DbError(where + ": corrupt level record (wrong entry count)");
  return *meta;
}

// A random build identity, never 0 (the identity of no build).
std::uint64_t draw_build() {
  std::random_device device;
  std::uint64_t id = 0;
  while (id == 0) id = std::uint64_t(device()) << 32 ^ device();
  return id;
}

}  // namespace

void raise_header(LmdbTxn& txn) {
  const auto header = txn.get(format::header_key().view());
  if (!header || format::decode_header(*header) < format::kVersion)
    txn.put(format::header_key().view(), format::encode_header());
}

std::string unbound_level_message(const std::string& path, TableId t, int n,
                                  std::uint32_t version) {
  return path + ": " + to_string(t) + " level " + std::to_string(n) + " was written by format " +
         std::to_string(version) + ", whose blocks do not name their place; " + upgrade_hint(path);
}

std::string upgrade_hint(const std::string& path) {
  return "`kalah verify --upgrade --db " + path + "` checks every value and binds them";
}

std::string no_table_message(const std::string& path, TableId t, const std::vector<TableId>& held) {
  std::string list;
  for (const TableId& x : held) list += (list.empty() ? "" : ", ") + to_string(x);
  return "database " + path + " has no table for " + to_string(t) +
         " (it holds: " + (list.empty() ? "nothing" : list) + ")";
}

std::uint64_t level_entries(int m, int n) {
  if (m < 1 || n < 0) return n == 0 ? 1 : 0;
  if (const std::optional<std::uint64_t> entries = arrangement_count(2 * m, n)) return *entries;
  throw DbError("level too large to index");
}

void index_ranks_of_storage(const LevelIndex& index, const StorageOrder& order, int n,
                            std::uint64_t first, std::span<std::uint64_t> ranks) {
  // Consecutive storage ranks differ in a few cells of low storage significance, so each
  // LevelIndex rank is updated from the previous one (Arrangements::rank_update).
  const int cells = index.cells();
  // reach[p]: the highest LevelIndex significance among the cells of storage significance p..
  int index_significance[2 * kMaxPits], reach[2 * kMaxPits];
  for (int k = 0; k < cells; ++k) index_significance[index.significance_cell(k)] = k;
  for (int p = cells - 1, most = 0; p >= 0; --p)
    reach[p] = most = std::max(most, index_significance[order.significance_cell(p)]);
  std::uint64_t sums[2 * kMaxPits + 1] = {};
  Stones x[2 * kMaxPits];
  order.unrank(first, n, x);
  for (std::size_t j = 0, changed = 0; j < ranks.size(); ++j) {
    ranks[j] = index.rank_update(x, n, j == 0 ? cells - 1 : reach[changed], sums);
    changed = std::size_t(std::max(order.next_changed(x), 0));
  }
}

Store::Store(const std::string& path, bool writable) : Store(path, writable, StoreOptions{}) {}

Store::Store(const std::string& path, bool writable, const StoreOptions& options)
    : path_(path), options_(options) {
  if (options_.block_entries == 0 || options_.blocks_per_group == 0)
    throw DbError(path + ": block_entries and blocks_per_group must be positive");
  env_ = std::make_unique<LmdbEnv>(path, writable, options.map_size);
  if (writable) build_ = draw_build();
  LmdbTxn txn(*env_, writable);
  if (const auto header = txn.get(format::header_key().view())) {
    const auto version = format::decode_header(*header);
    if (!version) throw DbError(path + ": not a kalah database (bad header record)");
    if (*version > format::kVersion)
      throw DbError(path + ": database format version " + std::to_string(*version) +
                    " is newer than this program's (" + std::to_string(format::kVersion) + ")");
    return;
  }
  bool empty = true;
  txn.scan("", [&](std::string_view, std::string_view) { return empty = false; });
  if (!writable || !empty)
    throw DbError(path + ": not a kalah database (LMDB environment without a kalah header)");
  txn.put(format::header_key().view(), format::encode_header());
  txn.commit();
}

Store::~Store() = default;

void Store::set_options(const StoreOptions& options) {
  if (options.block_entries == 0 || options.blocks_per_group == 0)
    throw DbError(path_ + ": block_entries and blocks_per_group must be positive");
  const std::uint64_t map_size = options_.map_size;
  options_ = options;
  options_.map_size = map_size;
}

std::string Store::level_where(TableId t, int n) const {
  return path_ + ": " + to_string(t) + " level " + std::to_string(n);
}

int Store::complete_through(TableId t) const {
  LmdbTxn txn(*env_, false);
  const auto v = txn.get(format::table_key(t).view());
  if (!v) return -1;
  const auto rec = format::decode_table(*v);
  if (!rec || !(rec->table == t))
    throw DbError(path_ + ": corrupt table record of " + to_string(t));
  return rec->complete_through;
}

std::optional<LevelMeta> Store::level_meta(TableId t, int n) const {
  LmdbTxn txn(*env_, false);
  return read_meta(txn, t, n, level_where(t, n));
}

void Store::check_readable(const LevelMeta& meta, TableId t, int n) const {
  if (!meta.bound() && !read_unbound_)
    throw DbError(unbound_level_message(path_, t, n, meta.format_version));
}

std::string Store::writable_level(TableId t, int n) const {
  const std::string where = level_where(t, n);
  if (!env_->writable()) throw DbError(path_ + ": database opened read-only");
  if (n < 0 || n > format::kMaxLevel)
    throw DbError(where + ": level out of range 0.." + std::to_string(format::kMaxLevel));
  return where;
}

void Store::write_level(TableId t, int n, std::span<const std::int8_t> values) {
  const std::string where = writable_level(t, n);
  const std::uint64_t entries = level_entries(t.m, n);
  if (values.size() != entries)
    throw DbError(where + ": write_level got " + std::to_string(values.size()) +
                  " values, the level has " + std::to_string(entries));
  const auto bad =
      std::find_if(values.begin(), values.end(), [n](std::int8_t v) { return v < -n || v > n; });
  if (bad != values.end())
    throw DbError(where + ": value " + std::to_string(*bad) + " at rank " +
                  std::to_string(bad - values.begin()) + " is outside [-n, n]");
  write_level(t, n, ResidentLevel{reinterpret_cast<const std::uint64_t*>(values.data()), n, false});
}

void Store::write_level(TableId t, int n, const ResidentLevel& values) {
  const std::string where = writable_level(t, n);
  if (values.n != n)
    throw DbError(where + ": the values given are of level " + std::to_string(values.n));
  const std::uint64_t entries = level_entries(t.m, n);
  write_level_blocks(t, n,
                     compress_blocks(t.m, n, values, entries, options_.block_entries,
                                     options_.zstd_level, options_.threads));
}

void Store::write_level_blocks(TableId t, int n, std::vector<std::string> blocks) {
  const std::string where = writable_level(t, n);
  const std::uint64_t entries = level_entries(t.m, n);
  const std::uint64_t want = block_count(entries, options_.block_entries);
  if (blocks.size() != want)
    throw DbError(where + ": " + std::to_string(blocks.size()) + " blocks given, the level has " +
                  std::to_string(want));
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const std::uint64_t count = block_size(entries, options_.block_entries, b);
    if (block_entries_of(blocks[b]) != count)
      throw DbError(block_where(where, std::uint32_t(b)) + ": block holds " +
                    std::to_string(block_entries_of(blocks[b])) + " entries, not " +
                    std::to_string(count));
    bind_block(blocks[b], {t, n, std::uint32_t(b), build_}, block_where(where, std::uint32_t(b)));
  }

  LevelMeta meta{};
  meta.entries = entries;
  Xxh64Stream level_hash;  // over the blocks' value checksums (FORMAT.md)
  for (const std::string& b : blocks) level_hash.update(b.data() + kBlockValueSumOffset, 8);
  meta.checksum = level_hash.digest();
  meta.format_version = format::kVersion;
  meta.block_entries = options_.block_entries;
  meta.complete = true;
  meta.blocks = std::uint32_t(blocks.size());
  meta.blocks_per_group = options_.blocks_per_group;
  meta.codec = kCodecZstdInt8;
  meta.zstd_level = options_.zstd_level;
  meta.build = build_;

  LmdbTxn txn(*env_, true);
  raise_header(txn);
  txn.erase_prefix(format::group_prefix(t, n).view());
  const std::size_t per_group = meta.blocks_per_group;
  for (std::size_t first = 0, g = 0; first < blocks.size(); first += per_group, ++g) {
    const std::size_t count = std::min(per_group, blocks.size() - first);
    const std::string group = format::encode_group(blocks, first, count);
    meta.compressed_bytes += group.size();
    txn.put(format::group_key(t, n, std::uint32_t(g)).view(), group);
    for (std::size_t j = first; j < first + count; ++j) std::string().swap(blocks[j]);
  }
  txn.put(format::level_key(t, n).view(), format::encode_level(t, n, meta));
  int through = -1;
  for (int k = 0; k <= format::kMaxLevel; ++k) {
    const auto m = read_meta(txn, t, k, level_where(t, k));
    if (!m || !m->complete) break;
    through = k;
  }
  txn.put(format::table_key(t).view(), format::encode_table({t, through}));
  txn.commit();
}

void Store::scan_level(
    TableId t, int n,
    const std::function<void(std::uint64_t, std::span<const std::int8_t>)>& fn) const {
  scan_level_parallel(t, n, 1, fn);  // one thread takes the blocks in order
}

void Store::scan_level_parallel(
    TableId t, int n, unsigned threads,
    const std::function<void(std::uint64_t, std::span<const std::int8_t>)>& fn) const {
  const std::string where = level_where(t, n);
  LmdbTxn txn(*env_, false);
  const LevelMeta meta = complete_meta(txn, t, n, where);
  check_readable(meta, t, n);
  // The group records stay mapped, unchanged, while the read transaction lives.
  std::vector<std::string_view> groups;
  const auto prefix = format::group_prefix(t, n);
  txn.scan(prefix.view(), [&](std::string_view key, std::string_view value) {
    if (key.size() != prefix.size + 4 || format::get_be(key, prefix.size, 4) != groups.size())
      throw DbError(block_where(where, std::uint32_t(groups.size()) * meta.blocks_per_group) +
                    ": missing");
    groups.push_back(value);
    return true;
  });
  const std::uint64_t want_groups = block_count(meta.blocks, meta.blocks_per_group);
  if (groups.size() != want_groups)
    throw DbError(where + ": " + std::to_string(groups.size()) + " block groups, its record says " +
                  std::to_string(want_groups));

  // Each block's checksum of its values (8 stored bytes), hashed in block order afterwards.
  std::vector<std::string_view> value_sums(meta.blocks);
  for_each_index(groups.size(), threads, [&](std::size_t g) {
    const std::uint32_t first_block = std::uint32_t(g) * meta.blocks_per_group;
    const auto count = std::uint32_t(block_size(meta.blocks, meta.blocks_per_group, g));
    std::vector<std::int8_t> buf(block_size(meta.entries, meta.block_entries, 0));
    for (std::uint32_t j = 0; j < count; ++j) {
      const std::uint32_t block = first_block + j;
      const auto stored = format::block_in_group(groups[g], j, count);
      if (!stored) throw DbError(block_where(where, block) + ": corrupt block group record");
      const std::uint64_t first = std::uint64_t(block) * meta.block_entries;
      const std::span<std::int8_t> values(
          buf.data(), std::size_t(block_size(meta.entries, meta.block_entries, block)));
      const BlockPlace place{t, n, block, meta.build};
      decode_block(*stored, values, meta.bound() ? &place : nullptr, block_where(where, block));
      value_sums[block] = stored->substr(kBlockValueSumOffset, 8);
      fn(first, values);
    }
  });
  Xxh64Stream hash;
  for (const std::string_view sum : value_sums) hash.update(sum.data(), sum.size());
  if (hash.digest() != meta.checksum) throw DbError(where + ": level checksum mismatch");
}

void Store::read_level_stored(TableId t, int n, std::span<std::int8_t> out,
                              unsigned threads) const {
  const std::uint64_t entries = level_entries(t.m, n);
  if (out.size() != entries)
    throw DbError(level_where(t, n) + ": read_level_stored needs room for " +
                  std::to_string(entries) + " values, got " + std::to_string(out.size()));
  scan_level_parallel(t, n, threads, [&](std::uint64_t first, std::span<const std::int8_t> v) {
    std::copy(v.begin(), v.end(), out.begin() + std::ptrdiff_t(first));
  });
}

void Store::read_level(TableId t, int n, std::span<std::int8_t> out, unsigned threads) const {
  const std::uint64_t entries = level_entries(t.m, n);
  if (out.size() != entries)
    throw DbError(level_where(t, n) + ": read_level needs room for " + std::to_string(entries) +
                  " values, got " + std::to_string(out.size()));
  const LevelIndex index(t.m, n);
  const StorageOrder order(t.m, n);
  scan_level_parallel(t, n, threads, [&](std::uint64_t first, std::span<const std::int8_t> v) {
    Stones x[2 * kMaxPits];
    order.unrank(first, n, x);
    for (const std::int8_t value : v) {
      out[index.rank(x, n)] = value;
      order.next(x);
    }
  });
}

bool Store::bind_level(TableId t, int n, std::uint64_t checked) {
  const std::string where = writable_level(t, n);
  LmdbTxn txn(*env_, true);
  LevelMeta meta = complete_meta(txn, t, n, where);
  if (meta.bound()) return false;
  if (meta.checksum != checked)
    throw DbError(where + ": written again since it was checked (its level checksum changed)");
  Xxh64Stream level_hash;  // over the blocks' value checksums in block order (FORMAT.md)
  const auto groups = std::uint32_t(block_count(meta.blocks, meta.blocks_per_group));
  for (std::uint32_t g = 0; g < groups; ++g) {
    const std::uint32_t first_block = g * meta.blocks_per_group;
    const auto value = txn.get(format::group_key(t, n, g).view());
    if (!value) throw DbError(block_where(where, first_block) + ": missing");
    const auto count = std::uint32_t(block_size(meta.blocks, meta.blocks_per_group, g));
    std::vector<std::string> blocks(count);
    for (std::uint32_t j = 0; j < count; ++j) {
      const std::uint32_t block = first_block + j;
      const auto stored = format::block_in_group(*value, j, count);
      if (!stored) throw DbError(block_where(where, block) + ": corrupt block group record");
      blocks[j] = *stored;
      if (block_entries_of(blocks[j]) != block_size(meta.entries, meta.block_entries, block))
        throw DbError(block_where(where, block) + ": corrupt block (wrong entry count)");
      bind_block(blocks[j], {t, n, block, build_}, block_where(where, block));
      level_hash.update(blocks[j].data() + kBlockValueSumOffset, 8);
    }
    txn.put(format::group_key(t, n, g).view(), format::encode_group(blocks, 0, count));
  }
  if (level_hash.digest() != meta.checksum) throw DbError(where + ": level checksum mismatch");
  meta.build = build_;
  txn.put(format::level_key(t, n).view(), format::encode_level(t, n, meta));
  raise_header(txn);
  txn.commit();
  return true;
}

void Store::read_block(TableId t, int n, std::uint32_t block, std::vector<std::int8_t>& out,
                       std::uint32_t expect_block_entries) const {
  const std::string where = level_where(t, n);
  LmdbTxn txn(*env_, false);
  const auto meta = read_meta(txn, t, n, where);
  if (!meta || !meta->complete) throw DbError(where + ": level not in the database");
  check_readable(*meta, t, n);
  if (expect_block_entries && meta->block_entries != expect_block_entries)
    throw DbError(where + ": level rewritten with another block size since the probe opened");
  if (block >= meta->blocks) throw DbError(block_where(where, block) + ": beyond the level");
  const std::uint32_t group = block / meta->blocks_per_group;
  const auto value = txn.get(format::group_key(t, n, group).view());
  if (!value) throw DbError(block_where(where, block) + ": missing");
  const std::uint32_t first_block = group * meta->blocks_per_group;
  const auto stored = format::block_in_group(
      *value, block - first_block,
      std::uint32_t(block_size(meta->blocks, meta->blocks_per_group, group)));
  if (!stored) throw DbError(block_where(where, block) + ": corrupt block group record");
  out.resize(std::size_t(block_size(meta->entries, meta->block_entries, block)));
  const BlockPlace place{t, n, block, meta->build};
  decode_block(*stored, out, meta->bound() ? &place : nullptr, block_where(where, block));
}

std::vector<TableId> Store::tables() const {
  LmdbTxn txn(*env_, false);
  std::vector<TableId> out;
  const char tag = char(format::kTable);
  txn.scan(std::string_view(&tag, 1), [&](std::string_view, std::string_view v) {
    const auto rec = format::decode_table(v);
    if (!rec) throw DbError(path_ + ": corrupt table record");
    out.push_back(rec->table);
    return true;
  });
  return out;
}

std::uint64_t Store::used_bytes() const {
  return env_->used_bytes();
}

std::size_t Store::clear_stale_readers() const {
  return env_->clear_stale_readers();
}

}  // namespace kalah
