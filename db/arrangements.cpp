// Arrangements' tables (binomials, per-significance prefix counts), unrank and the successor step.
#include "db/arrangements.hpp"

#include <stdexcept>
#include <string>

namespace kalah {

std::optional<std::uint64_t> arrangement_count(int c, int n) {
  if (c <= 0 || n < 0) return c == 0 && n == 0 ? 1 : 0;
  unsigned __int128 r = 1;
  for (int i = 1; i < c; ++i) {
    r = r * unsigned(n + i) / unsigned(i);  // C(n + i, i), exact at every step
    if (r >> 63) return std::nullopt;
  }
  return std::uint64_t(r);
}

Arrangements::Arrangements(int m, int max_stones, const int* order, const char* what)
    : m_(m), cells_(2 * m), max_stones_(max_stones), stride_(max_stones + 1) {
  if (m < 1 || m > kMaxPits || max_stones < 0 || max_stones > 255)
    throw std::invalid_argument(std::string(what) + ": m must be 1..12 and max_stones 0..255");
  plane_ = std::size_t(stride_) * stride_;
  for (int k = 0; k < cells_; ++k) order_[k] = order[k];
  const int rows = max_stones + cells_;
  binom_.assign(std::size_t(rows) * cells_, 0);
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cells_ && b <= a; ++b)
      binom_[a * cells_ + b] = *arrangement_count(b + 1, a - b);
  below_.assign(std::size_t(cells_) * plane_, 0);
  for (int k = 0; k + 1 < cells_; ++k) {
    const int rest = cells_ - k - 1;  // significances after k
    for (int n = 0; n <= max_stones; ++n) {
      // Significance k holding v leaves n - v stones for the rest; a larger v ranks higher.
      std::uint64_t acc = 0;
      for (int v = 0; v <= n; ++v) {
        below_[k * plane_ + std::size_t(n) * stride_ + v] = acc;
        acc += count(rest, n - v);
      }
    }
  }
}

std::uint64_t Arrangements::rank(const Position& p, int n) const {
  Stones x[2 * kMaxPits];
  for (int i = 0; i < m_; ++i) {
    x[i] = p.own_pit(i);
    x[m_ + i] = p.opp_pit(i);
  }
  return rank(x, n);
}

void Arrangements::unrank(std::uint64_t r, int n, Stones* x) const {
  for (int k = 0; k + 1 < cells_; ++k) {
    const std::uint64_t* row = &below_[k * plane_ + std::size_t(n) * stride_];
    int v = 0;
    while (v < n && row[v + 1] <= r) ++v;
    x[order_[k]] = Stones(v);
    r -= row[v];
    n -= v;
  }
  x[order_[cells_ - 1]] = Stones(n);
}

int Arrangements::next_changed(Stones* x) const {
  // Raise the least significant position k-1 that has stones after it by one; the tail minus
  // one stone goes to the least significant cell, the cells between are emptied.
  int tail = 0;
  for (int k = cells_ - 1; k >= 1; --k) {
    tail += x[order_[k]];
    if (tail > 0) {
      x[order_[k - 1]] += 1;
      for (int j = k; j < cells_; ++j) x[order_[j]] = 0;
      x[order_[cells_ - 1]] = Stones(tail - 1);
      return k - 1;
    }
  }
  return -1;
}

}  // namespace kalah
