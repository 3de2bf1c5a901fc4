// The solved-table store: levels as verified zstd blocks in LMDB, plus a book of solved positions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "db/db_error.hpp"
#include "db/resident_level.hpp"
#include "db/table.hpp"
#include "engine/position.hpp"

namespace kalah {

class LmdbEnv;
class LevelIndex;
class StorageOrder;

// Tuning of a writable store. Readers take everything from the stored records.
struct StoreOptions {
  std::uint64_t map_size = std::uint64_t(64) << 30;  // LMDB map (virtual; the file grows as needed)
  std::uint32_t block_entries = 65536;  // values per block: ratio vs cold-probe latency (FORMAT.md)
  std::uint32_t blocks_per_group = 64;  // blocks per LMDB record: amortises LMDB's page rounding
  int zstd_level = 15;   // writer-side only; size against speed: FORMAT.md, "Codec choices"
  unsigned threads = 0;  // compression threads in write_level; 0: all cores
};

// Number of arrangements of n stones in the 2m pits: C(n+2m-1, 2m-1).
std::uint64_t level_entries(int m, int n);

// The LevelIndex ranks of storage ranks first, first + 1, ... of level n: ranks.size() of them
// (how a block of the stored level gathers its values from the generator's order).
void index_ranks_of_storage(const LevelIndex& index, const StorageOrder& order, int n,
                            std::uint64_t first, std::span<std::uint64_t> ranks);

// Entries of a table's book: checksummed ones, and those of format version 1 (no checksum, not
// used; kalah solve --book rewrites them).
struct BookSize {
  std::uint64_t entries = 0, unchecked = 0;
};

// "database PATH has no table for T (it holds: ...)": what a reader says of a table `held`, the
// store's tables(), lacks.
std::string no_table_message(const std::string& path, TableId t, const std::vector<TableId>& held);

// "3,3,0,1,...": the 2m pit counts of a book entry (side to move first), as messages name it.
std::string book_pits_text(std::span<const Stones> pits);

// What a reader says of level n of table t written by format `version` (1 or 2), whose blocks do
// not name their place: how to upgrade it (upgrade_hint).
std::string unbound_level_message(const std::string& path, TableId t, int n, std::uint32_t version);
// "`kalah verify --upgrade --db PATH` checks every value and binds them": how the levels of
// formats 1 and 2 of the database at path are upgraded.
std::string upgrade_hint(const std::string& path);

// A kalah database: one LMDB environment (directory) holding any number of tables. Const members
// may be called from many threads at once; writes are serialised by LMDB. At most one Store per
// path per process. Layout: db/FORMAT.md.
class Store {
 public:
  // Opens the LMDB environment in directory `path`. writable creates the directory and the
  // environment if absent. Read-only open of a missing/unreadable path throws
  // DbError("no database at PATH ..."); an LMDB env that is not a kalah database, or is corrupt,
  // throws DbError too.
  Store(const std::string& path, bool writable);
  Store(const std::string& path, bool writable, const StoreOptions& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  // The identity of this store's writes: every level it writes carries it, and every block's
  // checksum covers it (db/FORMAT.md). Drawn at random when a writable store is opened; 0 when
  // read-only.
  std::uint64_t build() const { return build_; }
  // Whether levels of formats 1 and 2 (LevelMeta::bound() false), whose blocks do not name their
  // place, are read, with the checks of their format (each block's own checksums, the level
  // checksum over the blocks in order). Off by default: every read of such a level then throws
  // DbError(unbound_level_message(...)). For the readers that check or report a whole table
  // (kalah verify, kalah stats) and for bind_level.
  void read_unbound_levels(bool on) { read_unbound_ = on; }
  bool reads_unbound_levels() const { return read_unbound_; }
  // Throws DbError(unbound_level_message(...)) when level n of table t, recorded as `meta`, is of
  // format 1 or 2 and !reads_unbound_levels(): what every read checks, and a reader that answers
  // values checks of each level when it opens the table.
  void check_readable(const LevelMeta& meta, TableId t, int n) const;
  // Block size, zstd level and threads for later writes (map_size is fixed at open).
  void set_options(const StoreOptions& options);
  const StoreOptions& options() const { return options_; }

  // Highest k such that levels 0..k of the table are all complete; -1 if none.
  int complete_through(TableId t) const;
  std::optional<LevelMeta> level_meta(TableId t, int n) const;

  // Writes level n (values[LevelIndex rank], values.size() == level_entries(t.m, n), each in
  // [-n, n]) as blocks in storage order (StorageOrder), its level
  // record and the table record in ONE write transaction, committed durably on return. Replaces
  // an existing level. Throws DbError on failure (map full, disk full: the message says so) and
  // then leaves the database as it was.
  void write_level(TableId t, int n, std::span<const std::int8_t> values);
  // The same from level n's values packed (or not) as ResidentLevel keeps them, by LevelIndex
  // rank: level_entries(t.m, n) of them.
  void write_level(TableId t, int n, const ResidentLevel& values);

  // Writes level n from its blocks already encoded (encode_block of storage ranks b * E, ...,
  // E = options().block_entries, in block order), as write_level does: one transaction with the
  // level record and the table record. Throws DbError when the blocks do not cover the level.
  void write_level_blocks(TableId t, int n, std::vector<std::string> blocks);

  // Reads level n back completely into out[LevelIndex rank], verifying every block and the level
  // checksum, decoding and placing blocks on up to `threads` threads (0: all cores).
  void read_level(TableId t, int n, std::span<std::int8_t> out, unsigned threads = 0) const;

  // Calls fn(first, values) for each block of level n in block order, on the calling thread:
  // scan_level_parallel on one thread. Memory: one block.
  void scan_level(TableId t, int n,
                  const std::function<void(std::uint64_t, std::span<const std::int8_t>)>& fn) const;

  // Calls fn(first, values) once for each block of level n (values of storage ranks first,
  // first+1, ..., each block verified), from up to `threads` threads at once (0: all cores), in no
  // particular order; values live only during the call. The level checksum is checked after the
  // last block: what fn made of the values is sound only when this returns without throwing.
  void scan_level_parallel(
      TableId t, int n, unsigned threads,
      const std::function<void(std::uint64_t, std::span<const std::int8_t>)>& fn) const;

  // Reads level n completely into out in storage order (out[storage rank], StorageOrder),
  // verifying every block and the level checksum, decoding blocks on up to `threads` threads
  // (0: all cores). The fast way to hold a whole level in memory.
  void read_level_stored(TableId t, int n, std::span<std::int8_t> out, unsigned threads = 0) const;

  // Rewrites level n, when it is of format 1 or 2, as this format, in one write transaction: checks
  // every block's checksum and the level checksum (the blocks in their order), then binds each
  // block to its place and build() and writes the level record; the values and their encoding
  // stay as they are. checked: the level checksum (LevelMeta::checksum) of the level the caller
  // checked; a level whose record holds another was written again since, and is refused. Returns
  // false, changing nothing, for a level already bound. Throws DbError, leaving the level as it
  // was, when it is missing, incomplete, not the level checked or fails a check.
  bool bind_level(TableId t, int n, std::uint64_t checked);

  // Reads and verifies one block of level n (storage ranks block * block_entries, ...) into out,
  // resized to the block's entry count. The level must be complete. Throws DbError on a missing
  // or corrupt block, or when expect_block_entries is non-zero and the level's block size differs
  // (the level was rewritten since the caller looked).
  void read_block(TableId t, int n, std::uint32_t block, std::vector<std::int8_t>& out,
                  std::uint32_t expect_block_entries = 0) const;

  // Tables present (from the table records), in key order.
  std::vector<TableId> tables() const;

  // Solved-position book: exact future margins keyed by the 2m pit counts (side to move first)
  // of positions beyond the level tables, each entry checksummed with its key. One transaction
  // per call; creates the table record if absent. Overwrites existing entries (an unchecked
  // entry of format version 1 among them) and raises the header to this format version.
  void put_book(TableId t, const std::vector<std::pair<std::vector<Stones>, int>>& entries);
  // The entry's margin; nullopt when there is none or it is unchecked (format version 1: not
  // trusted, so not used). Throws DbError naming the entry when it fails its checksum.
  std::optional<int> get_book(TableId t, std::span<const Stones> pits) const;
  BookSize book_size(TableId t) const;
  // Every checked book entry of t, in key order: (2m pit counts, future margin). Throws DbError
  // at the first entry that fails its checksum.
  std::vector<std::pair<std::vector<Stones>, int>> book_entries(TableId t) const;

  // Bytes of the LMDB data file in use, all tables together.
  std::uint64_t used_bytes() const;

  // Frees the reader slots that processes killed while this database was open left behind, and
  // returns how many (LmdbEnv::clear_stale_readers). For long-running readers, now and then.
  std::size_t clear_stale_readers() const;

 private:
  std::string level_where(TableId t, int n) const;
  std::string corrupt_book_entry(TableId t, std::span<const Stones> pits) const;
  // level_where(t, n) of a level that may be written: the store writable, n in 0..255; else
  // DbError naming which is not so.
  std::string writable_level(TableId t, int n) const;
  std::string path_;
  StoreOptions options_;
  std::uint64_t build_ = 0;
  bool read_unbound_ = false;
  std::unique_ptr<LmdbEnv> env_;
};

}  // namespace kalah
