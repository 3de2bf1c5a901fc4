// The solver's register board: the pits of an M-pit position in one 16-byte vector (M <= 7).
#pragma once

#include <cstdint>

#include "boards.hpp"
#include "position.hpp"

namespace kalah::solve_detail {

// The board interface of solve_board.hpp over the play engine's vector board (search_detail::
// ByteBoard<M>: sowing adds one precomputed vector, the flip is two byte shifts, the key two
// multiplies), for boards of M pits a side fixed at compile time and at most 255 stones in pits.
// Both kalahs are 0 between moves. solve_test.cpp checks its moves against play_move's board and
// its solves against naive minimax and the generic byte board.
template <class R, int M>
class RegisterBoard {
 public:
  using Rules = R;
  static constexpr int kMaxM = M;
  static constexpr int kFixedCells = 2 * M;
  static constexpr int kMaxPitStones = search_detail::ByteBoard<M>::kMaxStones;

  RegisterBoard() = default;  // uninitialized: only to be assigned to
  explicit RegisterBoard(const Position& p) : b_(pits_of(p)) {}

  static constexpr int m() { return M; }
  int pit(int i) const { return b_.pit(i); }
  int opp_pit(int i) const { return b_.pit(M + 1 + i); }
  int own_stones() const { return b_.own_stones(); }

  [[gnu::always_inline]] int play(int i, bool& again) {
    again = b_.template apply<R>(i);
    const int gain = b_.take_kalah();
    if (!again) b_.flip();
    return gain;
  }

  [[gnu::always_inline]] std::uint64_t key() const { return b_.key(); }
  const std::uint8_t* cells() const { return b_.cells(); }

  Position position() const {
    Position p;
    p.m = M;
    for (int i = 0; i < M; ++i) {
      p.own_pit(i) = Stones(pit(i));
      p.opp_pit(i) = Stones(opp_pit(i));
    }
    return p;
  }

 private:
  static Position pits_of(Position p) {
    p.own_kalah() = 0;
    p.opp_kalah() = 0;
    return p;
  }

  search_detail::ByteBoard<M> b_;
};

}  // namespace kalah::solve_detail
