// LevelIndex: the generator's order and its two-cells-a-lookup rank table.
#include "db/index.hpp"

#include <array>

namespace kalah {

namespace {

// Significance order: own pit m, opponent's pit m, own pit m-1, ..., own pit 1, opponent's pit 1.
// Pits near the kalahs change least often under sowing, so successors of neighbouring entries stay
// near each other: the generator's table reads become mostly cache-friendly (docs/PERFORMANCE.md,
// "Generator").
std::array<int, 2 * kMaxPits> generator_order(int m) {
  std::array<int, 2 * kMaxPits> order{};
  for (int k = 0; k < 2 * m && k < 2 * kMaxPits; ++k) order[k] = LevelIndex::order_cell(m, k);
  return order;
}

}  // namespace

LevelIndex::LevelIndex(int m, int max_stones)
    : Arrangements(m, max_stones, generator_order(m).data(), "LevelIndex") {
  build_pair_table();
}

void LevelIndex::build_pair_table() {
  pair_plane_ = std::size_t(stride_) * stride_ * stride_;
  if (pair_plane_ * m_ * sizeof(std::uint32_t) > (std::size_t(4) << 20)) return;  // too large
  if (size(max_stones_) > UINT32_MAX) return;
  pair_.assign(pair_plane_ * m_, 0);
  for (int p = 0; p < m_; ++p) {
    const int k = 2 * p;
    for (int n = 0; n <= max_stones_; ++n) {
      for (int a = 0; a <= n; ++a) {
        for (int b = 0; a + b <= n; ++b) {
          std::uint64_t v = below_[k * plane_ + n * stride_ + a];
          if (k + 1 < cells_ - 1) v += below_[(k + 1) * plane_ + (n - a) * stride_ + b];
          pair_[p * pair_plane_ + (std::size_t(n) * stride_ + a) * stride_ + b] = std::uint32_t(v);
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

}  // namespace kalah
