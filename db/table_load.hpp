// How a table is held in memory: the one load policy of the command line, the library and the
// server.
#pragma once

#include <cstddef>
#include <string>

#include "db/store.hpp"

namespace kalah {

// kCache: blocks decoded on demand through an LRU block cache of the memory allowed.
// kMemory: the whole table decoded into memory at once, whatever the memory allowed.
// kAuto: the cache until the work reaches kDecodeBeyond or more stones in pits beyond the table;
// then the whole table decoded, when that takes at most the memory allowed.
enum class TableLoad { kAuto, kCache, kMemory };

// How far beyond a table (stones in pits) a search must go for kAuto to decode it: closer
// searches probe too few positions to repay the decoding.
inline constexpr int kDecodeBeyond = 8;
// The reach of work that reads the whole table (a scan or a sample of every level).
inline constexpr int kReachesEverywhere = 1 << 20;

// "auto", "cache" or "memory" (InputError naming `option` for anything else).
TableLoad parse_table_load(const std::string& text, const std::string& option = "--db-load");

// What resolve_table_load decided: kCache or kMemory, never kAuto.
struct TableLoadChoice {
  TableLoad load = TableLoad::kCache;
  bool by_size = false;             // kAuto, and the work reached far enough: the size decided
  std::uint64_t decoded_bytes = 0;  // when by_size: the decoded table's bytes
};

// How `load` holds table t of `store` (levels 0..levels, -1: all) for work reaching positions
// with `reach` stones in pits, memory_bytes allowed. kAuto throws DbError when the store holds no
// table t (Probe::covered_levels).
TableLoadChoice resolve_table_load(TableLoad load, const Store& store, TableId t, int levels,
                                   std::size_t memory_bytes, int reach);

}  // namespace kalah
