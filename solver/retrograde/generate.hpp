// Parallel generation of one level of a table in memory (the generator's engine room).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/rules.hpp"
#include "solver/retrograde/level_kernel.hpp"

namespace kalah {

// Called from one thread while a level is being generated: entries done so far of `total`.
using LevelProgress = std::function<void(int n, std::uint64_t done, std::uint64_t total)>;

// Computes level n completely into levels[n] (allocated here) and packs it (LevelTables::pack),
// using levels[0..n-1], which must be complete and packed. Runs on `threads` threads (0: all
// cores) with TBB.
void generate_level(Rules rules, const LevelIndex& index, LevelTables& levels, int n, int threads,
                    const LevelProgress& progress = {});

}  // namespace kalah
