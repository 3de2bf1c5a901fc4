// Positions drawn uniformly inside a table level: the referee's positions and libkalah's samples.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/position.hpp"

namespace kalah {

// What to draw: `count` positions of m pits a side, the stones in pits uniform in lo..hi.
struct TableDraw {
  int m = 6;
  int count = 100;
  int lo = 2, hi = 20;     // stones in pits, 2 <= lo <= hi
  int stones = 4;          // stones a pit at the start: the game's total is 2 * m * stones
  std::uint64_t seed = 1;  // the same seed, the same positions
};

// d.count positions, South to move: n stones in pits uniform in lo..hi, spread over the 2m pits
// with every arrangement that leaves both sides' pits non-empty equally likely (so no rule set's
// game is over); the kalahs split the rest of the total (none when n is more), neither holding
// more than half of all stones. Deterministic in d. Throws InputError unless 2 <= lo <= hi
// (a side with no stones ends the game), 1 <= m <= kMaxPits, count >= 0, stones >= 0 and the
// total fits kMaxTotalStones.
std::vector<Position> draw_table_positions(const TableDraw& d);

}  // namespace kalah
