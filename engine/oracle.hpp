// The engine's exact-value oracle: where a position's exact value is known (a database, a book).
#pragma once

#include <optional>

#include "engine/position.hpp"

namespace kalah {

// The future margin a move leaves its mover: the stones it put into the mover's kalah (gain)
// plus the future margin of the position it leads to, which is the mover's own when the mover
// moves again and the opponent's (negated) when the turn passes.
constexpr int future_after_move(int gain, bool again, int child_future) {
  return again ? gain + child_future : gain - child_future;
}

// Answers exact future margins for one rule set and board size. The future margin of a position
// (RULES.md "Values") depends only on the stones in its pits: the exact game margin is
// p.kalah_difference() + future. Implementations may throw on a corrupted store; they never guess.
class ExactOracle {
 public:
  virtual ~ExactOracle() = default;

  // Positions with at most this many stones in pits may be answered; -1 when none.
  int max_stones() const { return max_stones_; }

  // The exact future margin of p for its side to move, or nullopt when p is not covered.
  virtual std::optional<int> future(const Position& p) = 0;

  // True when some positions above max_stones() may be answered too (a book of solved positions).
  bool answers_beyond() const { return answers_beyond_; }

  // The exact game margin of p, or nullopt; the cheap stone-count guard comes first.
  std::optional<int> margin(const Position& p) {
    if (p.pit_stones() > max_stones_ && !answers_beyond_) return std::nullopt;
    if (auto f = future(p)) return p.kalah_difference() + *f;
    return std::nullopt;
  }

 protected:
  int max_stones_ = -1;
  bool answers_beyond_ = false;
};

}  // namespace kalah
