// The resumable database build: load the complete levels, solve the missing ones, commit each.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "db/store.hpp"
#include "solver/retrograde/generate.hpp"

namespace kalah {

struct BuildOptions {
  TableId table{Rules::kWetherell, 6};
  int max_stones = 16;  // levels 0..max_stones
  int threads = 0;      // 0: all cores
  // Memory the build may use, in bytes; 0: 7/8 of the machine's physical memory.
  std::uint64_t memory_limit = 0;
};

// What a build reports while it runs; every member may be left empty.
struct BuildEvents {
  std::function<void(int n, int max_stones)> loading;  // re-reading a stored level
  LevelProgress solving;                               // inside one level
  std::function<void(int n, std::uint64_t entries, double solve_s, double write_s)> level_done;
  std::function<void(int n)> after_commit;  // tests inject interruptions here
};

struct BuildReport {
  int first_built = -1;  // first level solved in this run; -1 when nothing was left to do
  int complete_through = -1;
  std::uint64_t entries_built = 0;
  double seconds = 0;
  bool packed = false;  // the levels were kept packed (build_packs_levels)
};

// Positions in levels 0..max_stones of m pits a side: C(max_stones + 2m, 2m), saturating at
// UINT64_MAX.
std::uint64_t table_entries(int m, int max_stones);

// Peak memory of the tables while building levels 0..max_stones, saturating at UINT64_MAX: the
// top level in bytes while it is solved, the levels below packed (LevelTables) with `packed`, in
// bytes without, plus the compressed blocks and transaction pages of the level below the top
// while it is committed (counted as a byte a value).
std::uint64_t build_memory_bytes(int m, int max_stones, bool packed);

// Whether a build of levels 0..max_stones within `limit` bytes keeps its levels packed: only when
// they do not fit in bytes. Throws InputError naming the memory needed, the limit and the largest
// table that fits when even the packed levels do not fit.
bool build_packs_levels(TableId t, int max_stones, std::uint64_t limit,
                        const std::string& limit_is);

// build_packs_levels for a build of `options` in this process: within options.memory_limit, or
// 7/8 of this machine's memory when that is 0.
bool build_packs_levels(const BuildOptions& options);

// The largest top level of a table of m pits a side (1..kMaxPits): kMaxTableStones, or less where
// a level above has 2^63 positions or more (arrangement_count: too many to index).
int max_table_stones(int m);

// Throws InputError naming --pits or --max-stones when the board size or the top level is out of
// range (0..max_table_stones(m)).
void check_build_options(const BuildOptions& options);

// Builds table levels up to options.max_stones into store. Levels already complete are loaded
// (and verified) instead of solved; each new level is committed in its own transaction, so an
// interrupted build loses at most the level in progress. Throws InputError for out-of-range
// options or too little memory, DbError for storage failures.
BuildReport build_database(Store& store, const BuildOptions& options,
                           const BuildEvents& events = {});

}  // namespace kalah
