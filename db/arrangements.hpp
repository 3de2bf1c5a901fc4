// Lexicographic ranking of n stones in the 2m pits, in a significance order of the caller's choice.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/position.hpp"

namespace kalah {

// The number of arrangements of n >= 0 stones in c >= 0 cells, C(n + c - 1, c - 1) (1 for no
// stones, 0 for stones in no cell); nullopt when it is 2^63 or more. The one place it is computed.
std::optional<std::uint64_t> arrangement_count(int c, int n);

// The arrangements of n stones in c = 2m cells x[0..2m) (the side to move's pits 1..m, then the
// opponent's pits 1..m), C(n+c-1, c-1) of them, ranked lexicographically with the cells read in
// significance order (cell `significance_cell(0)` most significant), a larger count ranking higher.
// rank() is a bijection onto [0, size(n)); unrank() its inverse; next() steps to rank + 1.
class Arrangements {
 public:
  // Levels 0..max_stones (<= 255) of m (1..12) pits per side; order[k]: the cell of significance
  // k, a permutation of [0, 2m). `what` names the caller in the error for bad arguments.
  Arrangements(int m, int max_stones, const int* order, const char* what);

  int m() const { return m_; }
  int cells() const { return cells_; }
  int max_stones() const { return max_stones_; }
  std::uint64_t size(int n) const { return count(cells_, n); }
  // The cell (0..2m-1, side to move first) of significance k (0 = most significant).
  int significance_cell(int k) const { return order_[k]; }

  // Number of arrangements of n stones in c cells: C(n+c-1, c-1).
  std::uint64_t count(int c, int n) const {
    return c == 0 ? (n == 0) : binom_[std::size_t(n + c - 1) * cells_ + (c - 1)];
  }

  // Rank of the arrangement x[0..2m) whose cells sum to n.
  std::uint64_t rank(const Stones* x, int n) const {
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data();
    for (int k = 0; k + 1 < cells_; ++k) {
      const int v = x[order_[k]];
      r += row[std::size_t(n) * stride_ + v];
      n -= v;
      row += plane_;
    }
    return r;
  }
  // Rank of a position's pits (side to move first); n = p.pit_stones().
  std::uint64_t rank(const Position& p, int n) const;

  // rank() of x (n stones) recomputing only the terms of significances 0..k. sums[j] (j in
  // [0, cells()]) holds the sum of the terms of significances j.. of the arrangement ranked last
  // with these sums, which must equal x in the cells of significance above k (then its cells
  // 0..k hold as many stones as x's); they are updated for x. k = cells() - 1 ranks from scratch
  // (sums zeroed at first).
  std::uint64_t rank_update(const Stones* x, int n, int k, std::uint64_t* sums) const {
    const int top = std::min(k, cells_ - 2);  // the last significance has no term
    std::uint64_t terms[2 * kMaxPits];
    const std::uint64_t* row = below_.data();
    for (int j = 0; j <= top; ++j) {
      const int v = x[order_[j]];
      terms[j] = row[std::size_t(n) * stride_ + v];
      n -= v;
      row += plane_;
    }
    for (int j = top; j >= 0; --j) sums[j] = terms[j] + sums[j + 1];
    return sums[0];
  }

  // Writes the 2m cells of arrangement r of level n.
  void unrank(std::uint64_t r, int n, Stones* x) const;
  // Steps x to the arrangement of rank + 1; false after the last one.
  bool next(Stones* x) const { return next_changed(x) >= 0; }
  // next(), returning the most significant significance whose cell changed (the cells of
  // significance above it are unchanged, so those up to it keep their sum); -1 after the last one.
  int next_changed(Stones* x) const;

 protected:
  int m_, cells_, max_stones_, stride_;
  std::size_t plane_;
  int order_[2 * kMaxPits];           // order_[k]: the cell of significance k
  std::vector<std::uint64_t> binom_;  // binom_[a * cells_ + b] = C(a, b)
  // below_[k*plane_ + n*stride_ + v]: arrangements of n stones in significances k.. whose
  // significance k holds fewer than v stones.
  std::vector<std::uint64_t> below_;
};

}  // namespace kalah
