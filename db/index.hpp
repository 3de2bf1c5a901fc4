// Dense rank/unrank of "n stones in the 2m pits, side to move first": the database's index.
#pragma once

#include <cstdint>
#include <vector>

#include "arrangements.hpp"
#include "position.hpp"

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

  // Rank of an arrangement stored elsewhere: the cell of significance k is v[where[k]] (compose
  // `where` with significance_cell()). For callers that keep cells in their own layout.
  template <class T>
  std::uint64_t rank_gathered(const T* v, const std::uint8_t* where, int n) const {
    if (!pair_.empty()) {
      // Two cells of significance 2p, 2p+1 per lookup.
      std::uint64_t r = 0;
      const std::uint32_t* plane = pair_.data();
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

  // The arrangement r of level n as a position (position_of_cells).
  Position position(std::uint64_t r, int n) const;

 private:
  void build_pair_table();

  // pair_[p*pair_plane_ + (n*stride_ + a)*stride_ + b]: the rank contribution of cells of
  // significance 2p and 2p+1 holding a and b with n stones left for cells 2p..; built when it is
  // small and every rank fits 32 bits.
  std::vector<std::uint32_t> pair_;
  std::size_t pair_plane_ = 0;
};

}  // namespace kalah
