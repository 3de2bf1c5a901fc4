// Dense rank/unrank of "n stones in the 2m pits, side to move first": the database's index.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "db/arrangements.hpp"
#include "engine/position.hpp"

namespace kalah {

// The position with these 2m cells as pits (side to move's pits 1..m, then the opponent's), both
// kalahs empty, the side to move South.
Position position_of_cells(int m, const Stones* x);

// The generator's order of level n, every arrangement of n stones in the 2m pits: significance
// order own pit m, opponent's pit m, own pit m-1, opponent's pit m-1, ..., own pit 1, opponent's
// pit 1. So all stones in own pit m is the last rank, all in opponent's pit 1 rank 0.
class LevelIndex : public Arrangements {
 public:
  // Supports levels 0..max_stones for m pits per side.
  LevelIndex(int m, int max_stones);

  // The cell (side to move's pits [0, m), then the opponent's) of significance k: own pit m,
  // opponent's pit m, own pit m-1, ... (significance_cell(k) of every LevelIndex of m pits).
  static constexpr int order_cell(int m, int k) { return (k % 2 ? m : 0) + (m - 1 - k / 2); }

  // Whether rank_board() may be used: every rank of the table fits the 32-bit pair table.
  bool ranks_by_pairs() const { return !pair_.empty(); }

  // Rank of the arrangement held by a board of M = m() pits in Position::cell layout (own pits
  // [0, M), opponent's pits [M+1, 2M]; the kalahs are not read) holding n stones in its pits.
  // Needs ranks_by_pairs(). The cells are gathered at compile-time offsets and the pairs' lookups
  // unrolled; the least significant pair needs no lookup (its rank is own pit 1's count).
  template <int M, class T>
  [[gnu::always_inline]] std::uint64_t rank_board(const T* cell, int n) const {
    return rank_board_pairs<M>(cell, n, std::make_integer_sequence<int, M - 1>{});
  }

  // The arrangement r of level n as a position (position_of_cells).
  Position position(std::uint64_t r, int n) const;

 private:
  // Position::cell index of the cell of significance k on a board of M pits.
  template <int M>
  static constexpr int board_cell(int k) {
    const int c = order_cell(M, k);
    return c < M ? c : c + 1;
  }
  template <int M, class T, int... P>
  [[gnu::always_inline]] std::uint64_t rank_board_pairs(const T* cell, [[maybe_unused]] int n,
                                                        std::integer_sequence<int, P...>) const {
    std::uint64_t r = 0;
    [[maybe_unused]] const std::size_t stride = std::size_t(stride_);
    (
        [&] {
          const int a = cell[board_cell<M>(2 * P)], b = cell[board_cell<M>(2 * P + 1)];
          r += pair_[P * pair_plane_ + (std::size_t(n) * stride + a) * stride + b];
          n -= a + b;
        }(),
        ...);
    return r + std::uint64_t(cell[board_cell<M>(2 * M - 2)]);
  }

  void build_pair_table();

  // pair_[p*pair_plane_ + (n*stride_ + a)*stride_ + b]: the rank contribution of cells of
  // significance 2p and 2p+1 holding a and b with n stones left for cells 2p..; built when it is
  // small and every rank fits 32 bits.
  std::vector<std::uint32_t> pair_;
  std::size_t pair_plane_ = 0;
};

}  // namespace kalah
