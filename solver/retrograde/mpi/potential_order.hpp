// A slice's entries in increasing potential: the order in which the distributed build solves it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <tbb/parallel_for.h>

#include "solver/retrograde/level_kernel.hpp"

namespace kalah {

// The entries of a slice (ranks first, ..., first + count - 1 of level n, local indices 0..count-1,
// count < 2^32) sorted by potential (LevelMoves<R, M>::potential), in index order within a
// potential: order[band_start[p] .. band_start[p + 1]) are the entries of potential p, for
// p = 0..n*M (band_start has n*M + 2 entries, the last one count).
struct PotentialOrder {
  std::vector<std::uint32_t> order;
  std::vector<std::uint64_t> band_start;

  int bands() const { return int(band_start.size()) - 1; }

  template <class R, int M>
  void sort(const LevelIndex& index, int n, std::uint64_t first, std::uint64_t count);
};

template <class R, int M>
void PotentialOrder::sort(const LevelIndex& index, int n, std::uint64_t first,
                          std::uint64_t count) {
  const int potentials = n * M + 1;
  const std::uint64_t chunks = std::min<std::uint64_t>(256, std::max<std::uint64_t>(count, 1));
  std::vector<std::uint64_t> counts(chunks * std::size_t(potentials), 0);
  // Chunk c of the slice, each entry visited with its potential, in index order.
  auto walk = [&](std::uint64_t c, auto&& visit) {
    const std::uint64_t lo = count * c / chunks, hi = count * (c + 1) / chunks;
    if (lo == hi) return;
    Stones x[2 * kMaxPits];
    index.unrank(first + lo, n, x);
    for (std::uint64_t i = lo;;) {
      visit(i, LevelMoves<R, M>::potential(x));
      if (++i == hi) break;
      index.next(x);
    }
  };
  tbb::parallel_for(std::uint64_t(0), chunks, [&](std::uint64_t c) {
    walk(c, [&](std::uint64_t, int p) { ++counts[c * potentials + p]; });
  });
  band_start.assign(std::size_t(potentials) + 1, 0);
  for (int p = 0; p < potentials; ++p) {
    std::uint64_t at = band_start[p];
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const std::uint64_t k = counts[c * potentials + p];
      counts[c * potentials + p] = at;  // where chunk c's entries of potential p go
      at += k;
    }
    band_start[p + 1] = at;
  }
  order.resize(count);
  tbb::parallel_for(std::uint64_t(0), chunks, [&](std::uint64_t c) {
    walk(c,
         [&](std::uint64_t i, int p) { order[counts[c * potentials + p]++] = std::uint32_t(i); });
  });
}

}  // namespace kalah
