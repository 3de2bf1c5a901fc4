// Exact value of a position and of each of its moves, from the database or, beyond it, the solver.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "position.hpp"
#include "rules.hpp"

namespace kalah {

enum class Outcome { kWin, kDraw, kLoss };
const char* outcome_name(Outcome o);  // "win", "draw", "loss"
inline Outcome outcome_of(int margin) {
  return margin > 0 ? Outcome::kWin : margin < 0 ? Outcome::kLoss : Outcome::kDraw;
}

// The outcome that bounds lower <= margin <= upper decide, if they decide one.
inline std::optional<Outcome> decided_outcome(int lower, int upper) {
  if (lower > 0) return Outcome::kWin;
  if (upper < 0) return Outcome::kLoss;
  if (lower == 0 && upper == 0) return Outcome::kDraw;
  return std::nullopt;
}

// A margin for the side to move that is either exact or only bounded: lower <= margin <= upper.
struct MarginBound {
  int lower = 0, upper = 0;
  bool exact() const { return lower == upper; }
};

struct MoveAnswer {
  int pit;            // 1-based
  MarginBound value;  // for the side to move in the queried position
  bool again;         // the mover moves again after it (kalah rules' extra turn)
  bool best = false;  // exact and equal to the position's margin
};

struct QueryAnswer {
  MarginBound value;
  bool over = false;              // the game is over: the value is the final margin, no moves
  bool used_solver = false;       // some value came from search rather than the oracle alone
  bool timed_out = false;         // the time ran out: some values are only bounds
  std::vector<MoveAnswer> moves;  // legal moves, ascending pit
};

// Values p and its moves. Children inside the oracle are answered from it; others are solved
// with the oracle at the leaves, sharing max_seconds (0: unlimited). Never reports a bound as
// exact. `threads`: search threads of each solve (SolveOptions::threads). `progress`, when set,
// gets each solve's status line (SolveOptions::progress) after the move it is for.
QueryAnswer query_position(Rules rules, const Position& p, ExactOracle* oracle, double max_seconds,
                           int threads = 1,
                           const std::function<void(const std::string& line)>& progress = {});

}  // namespace kalah
