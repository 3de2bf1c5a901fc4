// The order in which a level's values are stored: fixed by the file format, not by the generator.
#pragma once

#include <cstdint>
#include <vector>

#include "position.hpp"

namespace kalah {

// Storage rank of an arrangement of n stones in the 2m cells x[0..2m) (the side to move's pits
// 1..m, then the opponent's pits 1..m, as in LevelIndex): the lexicographic rank of the cells
// read opponent's pit 1, ..., opponent's pit m, own pit 1, ..., own pit m (most significant
// first), a larger count ranking higher. So all n stones in the opponent's pit 1 is the last
// rank, all in the side to move's pit m is rank 0. Grouping each side's pits together makes
// neighbouring entries similar, so blocks compress better than in the generator's interleaved
// order (db/FORMAT.md, "Storage order").
class StorageOrder {
 public:
  // Levels 0..max_stones (<= 255) of m (1..12) pits per side.
  StorageOrder(int m, int max_stones);

  int cells() const { return cells_; }
  std::uint64_t size(int n) const { return count(cells_, n); }

  std::uint64_t rank(const Stones* x, int n) const {
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data() + std::size_t(n) * stride_;
    for (int k = 0; k + 1 < cells_; ++k) {
      const int v = x[cell_[k]];
      r += row[v];
      row += plane_ - std::size_t(v) * stride_;  // next significance, n - v stones left
    }
    return r;
  }
  std::uint64_t rank(const Position& p, int n) const;
  // The same rank read from cells laid out as Position::cell (own pits [0, m), opponent's pits
  // [m+1, 2m]; the kalahs are not read), of any integer type. kCells: 2m when the caller knows it
  // at compile time (the loop then unrolls), else 0.
  template <int kCells = 0, class T>
  [[gnu::always_inline]] std::uint64_t rank_cells(const T* cell, int n) const {
    const int cells = kCells > 0 ? kCells : cells_;
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data() + std::size_t(n) * stride_;
    for (int k = 0; k + 1 < cells; ++k) {
      const int v = cell[board_cell_[k]];
      r += row[v];
      row += plane_ - std::size_t(v) * stride_;
    }
    return r;
  }

  void unrank(std::uint64_t r, int n, Stones* x) const;
  // Steps x to the arrangement of storage rank + 1; false after the last one.
  bool next(Stones* x) const;

 private:
  std::uint64_t count(int c, int n) const;
  int m_, cells_, stride_;
  std::size_t plane_;
  int cell_[2 * kMaxPits];        // cell_[k]: the cell of significance k (0: most significant)
  int board_cell_[2 * kMaxPits];  // the same cell in Position::cell layout
  // below_[k*plane_ + n*stride_ + v]: arrangements of n stones in significances k.. whose
  // significance k holds fewer than v stones.
  std::vector<std::uint64_t> below_;
  std::vector<std::uint64_t> binom_;  // binom_[a * cells_ + b] = C(a, b)
};

}  // namespace kalah
