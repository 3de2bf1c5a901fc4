// Per-level statistics of a stored table: value signs and stored size (for `kalah stats`).
#pragma once

#include <cstdint>
#include <vector>

#include "store.hpp"

namespace kalah {

// One stored level. Values are future margins (RULES.md): positive means the side to move gains
// more of the stones still in pits than the opponent does.
struct LevelStats {
  int n = 0;
  bool complete = false;  // inside the complete prefix 0..complete_through
  std::uint64_t entries = 0;
  std::uint64_t positive = 0;      // value > 0
  std::uint64_t zero = 0;          // value == 0
  std::uint64_t negative = 0;      // value < 0
  std::uint64_t stored_bytes = 0;  // block values, headers included (LevelMeta::compressed_bytes)
  double bits_per_position() const {
    return entries ? 8.0 * double(stored_bytes) / double(entries) : 0.0;
  }
};

// Every stored level of t in increasing n, each read and verified completely (DbError on damage).
// Levels beyond a gap are listed too, with complete = false.
std::vector<LevelStats> level_stats(const Store& store, TableId t);

}  // namespace kalah
