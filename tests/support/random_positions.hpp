// Random reachable positions for tests: random play from start positions of small boards.
#pragma once

#include <random>
#include <vector>

#include "engine/move.hpp"

namespace kalah::test {

// Plays `plies` random legal moves (fewer if the game ends) from the start of (m, k).
inline Position random_position(Rules rules, int m, int k, int plies, std::mt19937_64& rng) {
  Position p = start_position(m, k, rng() % 2 ? Side::kSouth : Side::kNorth);
  for (int i = 0; i < plies && !is_over(rules, p); ++i) {
    std::vector<int> legal;
    for (int pit = 1; pit <= m; ++pit)
      if (p.own_pit(pit - 1) > 0) legal.push_back(pit);
    play_move(rules, p, legal[rng() % legal.size()]);
  }
  return p;
}

}  // namespace kalah::test
