// The resumable database build: load the complete levels, solve the missing ones, commit each.
#pragma once

#include <cstdint>
#include <functional>

#include "generate.hpp"
#include "store.hpp"

namespace kalah {

struct BuildOptions {
  TableId table{Rules::kWetherell, 6};
  int max_stones = 16;  // levels 0..max_stones
  int threads = 0;      // 0: all cores
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
};

// Memory the build of levels 0..max_stones needs for its tables (one byte per entry), saturating
// at UINT64_MAX for sizes beyond any machine.
std::uint64_t build_memory_bytes(int m, int max_stones);

// Builds table levels up to options.max_stones into store. Levels already complete are loaded
// (and verified) instead of solved; each new level is committed in its own transaction, so an
// interrupted build loses at most the level in progress. Throws InputError for out-of-range
// options or too little memory, DbError for storage failures.
BuildReport build_database(Store& store, const BuildOptions& options,
                           const BuildEvents& events = {});

}  // namespace kalah
