// The order in which a level's values are stored: fixed by the file format, not by the generator.
#pragma once

#include <cstdint>

#include "db/arrangements.hpp"
#include "engine/position.hpp"

namespace kalah {

// Storage rank of an arrangement of n stones in the 2m cells x[0..2m) (the side to move's pits
// 1..m, then the opponent's pits 1..m, as in LevelIndex): the lexicographic rank of the cells
// read opponent's pit 1, ..., opponent's pit m, own pit 1, ..., own pit m (most significant
// first), a larger count ranking higher. So all n stones in the opponent's pit 1 is the last
// rank, all in the side to move's pit m is rank 0. Grouping each side's pits together makes
// neighbouring entries similar, so blocks compress better than in the generator's interleaved
// order (db/FORMAT.md, "Storage order").
class StorageOrder : public Arrangements {
 public:
  // Levels 0..max_stones (<= 255) of m (1..12) pits per side.
  StorageOrder(int m, int max_stones);

  // The rank read from cells laid out as Position::cell (own pits [0, m), opponent's pits
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
      row += plane_ - std::size_t(v) * stride_;  // next significance, n - v stones left
    }
    return r;
  }

 private:
  int board_cell_[2 * kMaxPits];  // the cell of significance k in Position::cell layout
};

}  // namespace kalah
