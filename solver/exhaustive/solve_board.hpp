// The solver's board: a Board moved by a rule policy, holding the pits alone (kalahs kept at 0).
#pragma once

#include <cstdint>

#include "engine/board.hpp"
#include "engine/byte_array_board.hpp"
#include "engine/position.hpp"
#include "engine/register_board.hpp"
#include "engine/wide_board.hpp"

namespace kalah::solve_detail {

// What the search asks of a board (R: the rule policy, Core: the Board that stores the cells):
//   kMaxM, kFixedCells (2m when m is fixed at compile time, else 0), kMaxPitStones
//   int m() const; int pit(int i) const; int opp_pit(int i) const; int own_stones() const
//   int play(int i, bool& again)     plays own pit i (0-based, non-empty) and returns the stones
//                                    the move put into the mover's kalah; unless again (extra
//                                    turn) the board is then seen from the opponent
//   std::uint64_t key() const        hash of the pits, side to move first; never 0
//   Position position() const        the pits with empty kalahs, South to move, for the oracle
//   const T* cells() const           the cells in Position::cell layout (kalahs hold 0)
// The future margin of a board depends only on its pits, which is all a board holds.
template <class R, Board Core>
class SolveBoard {
 public:
  using Rules = R;
  static constexpr int kMaxM = Core::kFixedM > 0 ? Core::kFixedM : kMaxPits;
  static constexpr int kFixedCells = 2 * Core::kFixedM;
  static constexpr int kMaxPitStones = Core::kMaxStones;

  SolveBoard() = default;  // uninitialized: only to be assigned to
  explicit SolveBoard(const Position& p) : b_(pits_of(p)) {}

  int m() const { return b_.m(); }
  int pit(int i) const { return b_.cell(i); }
  int opp_pit(int i) const { return b_.cell(m() + 1 + i); }
  int own_stones() const { return b_.own_stones(); }

  [[gnu::always_inline]] int play(int i, bool& again) {
    again = R::apply(b_, i);
    const int gain = b_.take(m());
    if (!again) b_.flip();
    return gain;
  }

  [[gnu::always_inline]] std::uint64_t key() const { return b_.key(); }
  auto cells() const { return b_.cells(); }

  Position position() const {
    Position p;
    p.m = m();
    for (int i = 0; i < p.m; ++i) {
      p.own_pit(i) = Stones(pit(i));
      p.opp_pit(i) = Stones(opp_pit(i));
    }
    return p;
  }

 private:
  static Position pits_of(Position p) {
    p.own_kalah() = 0;
    p.opp_kalah() = 0;
    p.mover = Side::kSouth;
    return p;
  }

  Core b_;
};

// True when the game is over at b (n stones in its pits) by the rule policy's game_ends; then
// *value is its future margin: each side keeps its own pit stones.
template <class B>
[[gnu::always_inline]] inline bool game_over(const B& b, int n, int* value) {
  const int own = b.own_stones();
  if (!B::Rules::game_ends(own == 0, own == n)) return false;
  *value = 2 * own - n;
  return true;
}

}  // namespace kalah::solve_detail
