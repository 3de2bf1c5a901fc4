// Probe: the engine's exact-value oracle answered from one stored table, through a block cache
// or from the whole table decoded into memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "db/block_cache.hpp"
#include "db/resident_level.hpp"
#include "db/storage_order.hpp"
#include "db/store.hpp"
#include "db/table_load.hpp"
#include "engine/huge_buffer.hpp"
#include "engine/oracle.hpp"

namespace kalah {

// Answers future margins of table t: positions with n <= store.complete_through(t) stones in pits
// from the level blocks (storage rank -> block -> cached decompressed block -> value), positions
// above from the book (loaded into memory when the probe is made). Thread-safe: many threads may
// call future() at once. A corrupted block throws DbError; a wrong value is never returned. The
// store must outlive the probe; levels written after construction are not seen (make a new Probe).
class Probe : public ExactOracle {
 public:
  // Throws DbError when the store holds no table t. load is kCache or kMemory (resolve kAuto
  // first: resolve_table_load). kCache: blocks are read and decompressed when first probed,
  // through an LRU cache of cache_bytes (see BlockCache for the exact bound). kMemory: every
  // level is decoded at construction (on `threads` threads, 0: all cores; resident_bytes(store,
  // t) bytes, verified as they are read, a value out of its level's range or parity being
  // corruption), then probes answer without locks or decompression and the store is no longer
  // read for levels. levels >= 0 uses only levels 0..levels of the table (what a smaller table
  // would answer); -1: all of them.
  Probe(const Store& store, TableId t, std::size_t cache_bytes = 256 << 20,
        TableLoad load = TableLoad::kCache, unsigned threads = 0, int levels = -1);

  // The last level a probe of table t answers from: store.complete_through(t), at most `levels`
  // when that is >= 0 (-1: none). Throws DbError naming the tables held when t is not one.
  static int covered_levels(const Store& store, TableId t, int levels = -1);

  // Memory a resident probe of table t (levels as above) takes: its complete levels as
  // ResidentLevel packs them (5 bits a position up to 31 stones in pits, a byte above).
  static std::uint64_t resident_bytes(const Store& store, TableId t, int levels = -1);
  bool resident() const { return resident_.data() != nullptr; }
  // Resident probes only: the values of level n <= max_stones() by storage rank (order()), for
  // callers that rank positions themselves (the solver ranks its own boards).
  const ResidentLevel& resident_level(int n) const { return levels_[n]; }
  const StorageOrder& order() const { return order_; }

  // nullopt when p has another board size than t, or lies above the levels and not in the book.
  std::optional<int> future(const Position& p) override;

  // From now on, positions above the levels are not answered from the book (benchmarks of the
  // search: every value proven).
  void forget_book() {
    book_.clear();
    answers_beyond_ = false;
  }

  TableId table() const { return table_; }
  std::uint64_t hits() const { return cache_.hits(); }      // level probes served from the cache
  std::uint64_t misses() const { return cache_.misses(); }  // level probes that read a block
  const BlockCache& cache() const { return cache_; }

 private:
  // Reads and packs every level into resident_ (constructor, TableLoad::kMemory).
  void load_resident(unsigned threads);

  const Store& store_;
  TableId table_;
  StorageOrder order_;
  std::vector<std::uint32_t> block_entries_;  // per level 0..max_stones_
  BlockCache cache_;
  HugeBuffer resident_;                // resident: all levels, storage order
  std::vector<ResidentLevel> levels_;  // resident: level n's values, in resident_
  // The table's book, read once at construction: pit counts (2 bytes each) -> future margin.
  std::unordered_map<std::string, int> book_;
};

}  // namespace kalah
