// The verify mode's check of a bot's rules: the board after a move and the repeat flag.
#pragma once

#include <string>

#include "engine/position.hpp"

namespace kalah::referee {

struct RuleCheck {
  bool ok = false;
  std::string why;  // empty when ok; else what the solution got wrong, one line
};

// Checks a bot's solution to `pit` (1-based, legal) played by the mover of p under KGP's game
// (the kalah rule set, docs/RULES.md): `board` must be the board after the move; when the move
// ends the game (a side's pits empty) or leaves a kalah holding more than half the stones, the
// board after the sweep of each side's pits into its own kalah is accepted too (go-kgp sends
// that), and the repeat flag is not checked, there being no next turn. Otherwise `repeat` must
// say whether the mover moves again.
RuleCheck check_solution(const Position& p, int pit, const Position& board, bool repeat);

}  // namespace kalah::referee
