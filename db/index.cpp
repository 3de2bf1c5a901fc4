// LevelIndex tables: binomials and per-cell prefix counts for lexicographic ranking.
#include "index.hpp"

#include <stdexcept>

namespace kalah {

LevelIndex::LevelIndex(int m, int max_stones)
    : m_(m), cells_(2 * m), max_stones_(max_stones), stride_(max_stones + 1) {
  if (m < 1 || m > kMaxPits || max_stones < 0 || max_stones > 255)
    throw std::invalid_argument("LevelIndex: m must be 1..12 and max_stones 0..255");
  plane_ = stride_ * stride_;
  // Significance order: own pit m, opponent's pit m, own pit m-1, ..., own pit 1, opponent's
  // pit 1. Pits near the kalahs change least often under sowing, so successors of neighbouring
  // entries stay near each other: the generator's table reads become mostly cache-friendly
  // (docs/PERFORMANCE.md, "Generator").
  for (int k = 0; k < cells_; ++k) order_[k] = (k % 2 ? m : 0) + (m - 1 - k / 2);
  bstride_ = cells_;
  const int rows = max_stones + cells_;
  binom_.assign(std::size_t(rows) * bstride_, 0);
  for (int a = 0; a < rows; ++a) {
    for (int b = 0; b < bstride_ && b <= a; ++b) {
      binom_[a * bstride_ + b] =
          (b == 0 || b == a)
              ? 1
              : binom_[(a - 1) * bstride_ + b - 1] + (b < a ? binom_[(a - 1) * bstride_ + b] : 0);
    }
  }
  below_.assign(std::size_t(cells_) * plane_, 0);
  for (int i = 0; i + 1 < cells_; ++i) {
    const int rest = cells_ - i - 1;  // cells after i
    for (int n = 0; n <= max_stones; ++n) {
      // Arrangements with cell i = v leave n - v stones for `rest` cells. Larger v ranks higher.
      std::uint64_t acc = 0;
      for (int v = 0; v <= n; ++v) {
        below_[i * plane_ + n * stride_ + v] = acc;
        acc += count(rest, n - v);
      }
    }
  }
  build_pair_table();
}

void LevelIndex::build_pair_table() {
  pair_plane_ = std::size_t(stride_) * stride_ * stride_;
  if (pair_plane_ * m_ * sizeof(std::uint64_t) > (std::size_t(4) << 20)) return;  // too large
  pair_.assign(pair_plane_ * m_, 0);
  for (int p = 0; p < m_; ++p) {
    const int k = 2 * p;
    for (int n = 0; n <= max_stones_; ++n) {
      for (int a = 0; a <= n; ++a) {
        for (int b = 0; a + b <= n; ++b) {
          std::uint64_t v = below_[k * plane_ + n * stride_ + a];
          if (k + 1 < cells_ - 1) v += below_[(k + 1) * plane_ + (n - a) * stride_ + b];
          pair_[p * pair_plane_ + (std::size_t(n) * stride_ + a) * stride_ + b] = v;
        }
      }
    }
  }
}

Position position_of_cells(int m, const Stones* x) {
  Position p;
  p.m = m;
  for (int i = 0; i < m; ++i) {
    p.own_pit(i) = x[i];
    p.opp_pit(i) = x[m + i];
  }
  return p;
}

Position LevelIndex::position(std::uint64_t r, int n) const {
  Stones x[2 * kMaxPits];
  unrank(r, n, x);
  return position_of_cells(m_, x);
}

std::uint64_t LevelIndex::rank(const Position& p, int n) const {
  Stones x[2 * kMaxPits];
  for (int i = 0; i < m_; ++i) {
    x[i] = p.own_pit(i);
    x[m_ + i] = p.opp_pit(i);
  }
  return rank(x, n);
}

void LevelIndex::unrank(std::uint64_t r, int n, Stones* x) const {
  for (int i = 0; i + 1 < cells_; ++i) {
    const std::uint64_t* row = &below_[i * plane_ + n * stride_];
    int v = 0;
    while (v < n && row[v + 1] <= r) ++v;
    x[order_[i]] = Stones(v);
    r -= row[v];
    n -= v;
  }
  x[order_[cells_ - 1]] = Stones(n);
}

bool LevelIndex::next(Stones* x) const {
  // The successor raises the rightmost cell i-1 that has stones after it by one and leaves the
  // smallest arrangement of the remaining tail-1 stones (all in the last cell) behind it.
  const int c = cells_;
  int tail = 0;
  for (int i = c - 1; i >= 1; --i) {
    tail += x[order_[i]];
    if (tail > 0) {
      // Raise significance i-1 by one, all remaining tail-1 stones to the least significant cell.
      x[order_[i - 1]] += 1;
      for (int k = i; k < c; ++k) x[order_[k]] = 0;
      x[order_[c - 1]] = Stones(tail - 1);
      return true;
    }
  }
  return false;
}

}  // namespace kalah
