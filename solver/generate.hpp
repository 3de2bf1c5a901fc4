// The level-by-level database generator: in-memory level solving and the resumable build into a Store.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "level_solver.hpp"
#include "rules.hpp"

namespace kalah {

// Called from one thread while a level is being solved: entries done so far of `total`.
using LevelProgress = std::function<void(int n, std::uint64_t done, std::uint64_t total)>;

// Solves level n completely into levels[n] (allocated here), using levels[0..n-1], which must be
// complete. Runs on `threads` threads (0: all cores) with TBB.
void solve_level(Rules rules, const LevelIndex& index, LevelTables& levels, int n, int threads,
                 const LevelProgress& progress = {});

// Bytes of memory the tables of levels 0..max_stones take: C(max_stones + 2m, 2m).
std::uint64_t table_bytes(int m, int max_stones);

}  // namespace kalah
