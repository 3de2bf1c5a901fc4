// Dense rank/unrank of "n stones in the 2m pits, side to move first": the database's index.
#pragma once

#include <cstdint>
#include <vector>

#include "position.hpp"

namespace kalah {

// The position with these 2m cells as pits (side to move's pits 1..m, then the opponent's), both
// kalahs empty, the side to move South.
Position position_of_cells(int m, const Stones* x);

// Level n holds every arrangement of n stones in c = 2m cells (the side to move's pits 1..m, then
// the opponent's pits 1..m), C(n+c-1, c-1) of them. rank() is a bijection onto [0, size(n)): the
// lexicographic rank of the cells read in significance order own pit m, opponent's pit m, own pit
// m-1, opponent's pit m-1, ..., own pit 1, opponent's pit 1 (most significant first), where a
// larger count ranks higher. So all stones in own pit m is the last rank, all in opponent's pit 1
// rank 0.
class LevelIndex {
 public:
  // Supports levels 0..max_stones for m pits per side.
  LevelIndex(int m, int max_stones);

  int m() const { return m_; }
  int cells() const { return cells_; }
  int max_stones() const { return max_stones_; }
  std::uint64_t size(int n) const { return count(cells_, n); }

  // Rank of the arrangement x[0..2m) whose cells sum to n.
  std::uint64_t rank(const Stones* x, int n) const {
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data();
    for (int i = 0; i + 1 < cells_; ++i) {
      const int v = x[order_[i]];
      r += row[n * stride_ + v];
      n -= v;
      row += plane_;
    }
    return r;
  }
  // Rank of a position's pits (side to move first); n = p.pit_stones().
  std::uint64_t rank(const Position& p, int n) const;

  // Rank of an arrangement stored elsewhere: the cell of significance k is v[where[k]] (compose
  // `where` with significance_cell()). For callers that keep cells in their own layout.
  template <class T>
  std::uint64_t rank_gathered(const T* v, const std::uint8_t* where, int n) const {
    if (!pair_.empty()) {
      // Two cells of significance 2p, 2p+1 per lookup.
      std::uint64_t r = 0;
      const std::uint64_t* plane = pair_.data();
      for (int k = 0; k < cells_; k += 2) {
        const int a = v[where[k]], b = v[where[k + 1]];
        r += plane[(n * stride_ + a) * stride_ + b];
        n -= a + b;
        plane += pair_plane_;
      }
      return r;
    }
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data();
    for (int k = 0; k + 1 < cells_; ++k) {
      const int x = v[where[k]];
      r += row[n * stride_ + x];
      n -= x;
      row += plane_;
    }
    return r;
  }
  // The cell (0..2m-1, side to move first) of significance k (0 = most significant).
  int significance_cell(int k) const { return order_[k]; }

  // Inverse of rank(): writes the 2m cells of arrangement r of level n.
  void unrank(std::uint64_t r, int n, Stones* x) const;

  // The arrangement r of level n as a position (position_of_cells).
  Position position(std::uint64_t r, int n) const;

  // Steps x (level n) to the arrangement of rank+1; false after the last one.
  bool next(Stones* x) const;

  // Number of arrangements of n stones in c cells: C(n+c-1, c-1).
  std::uint64_t count(int c, int n) const {
    return c == 0 ? (n == 0) : binom_[(n + c - 1) * bstride_ + (c - 1)];
  }

 private:
  void build_pair_table();

  int m_, cells_, max_stones_, stride_, plane_, bstride_;
  std::vector<std::uint64_t> binom_;  // binom_[a*bstride_ + b] = C(a, b)
  // below_[i*plane_ + n*stride_ + v]: arrangements of n stones in cells i.. whose cell i holds < v.
  std::vector<std::uint64_t> below_;
  // pair_[p*pair_plane_ + (n*stride_ + a)*stride_ + b]: the rank contribution of cells of
  // significance 2p and 2p+1 holding a and b with n stones left for cells 2p..; built when small.
  std::vector<std::uint64_t> pair_;
  std::size_t pair_plane_ = 0;
  // order_[k]: the cell of significance k (k = 0 most significant).
  int order_[2 * kMaxPits];
};

}  // namespace kalah
