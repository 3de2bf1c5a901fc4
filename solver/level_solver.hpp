// The retrograde kernel: future margins of one level from the levels below it (and itself).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "byte_array_board.hpp"
#include "index.hpp"
#include "level_tables.hpp"
#include "rules.hpp"

namespace kalah {

// Computes entries of level n (levels[n] in bytes) given complete levels below n (packed: pack()),
// for rule policy R and M pits a side. Same-level successors (sowings that stay on the mover's own
// side) are solved on demand by recursion; that terminates because such a move strictly lowers the
// total distance of all stones to their owners' kalahs. Entries may be solved concurrently from
// several threads: a value is written once it is final, and a duplicate computation writes the same
// value.
//
// Moves are R's kernel on a ByteArrayBoard<M> whose kalahs start at 0; tests compare every entry of
// small tables with a plain minimax over the engine.
template <class R, int M>
class LevelSolver {
 public:
  static constexpr int kRing = 2 * M + 1;

  LevelSolver(const LevelIndex& index, LevelTables& levels) : index_(index), levels_(levels) {
    // Ring cell of each significance for a successor: with the turn passed, the successor's own
    // pits are the ring's opponent cells; after an extra turn the ring is read as it is.
    for (int k = 0; k < 2 * M; ++k) {
      const int cell = index.significance_cell(k);
      const int own_ring = cell < M ? cell : cell + 1;  // ring: pits 0..M-1, kalah M, pits M+1..
      same_[k] = std::uint8_t(own_ring);
      passed_[k] = std::uint8_t(cell < M ? M + 1 + cell : cell - M);
    }
  }

  // Future margin of the arrangement x (2M cells, side to move first) holding n stones.
  int solve(const Stones* x, int n) {
    Ring base = Ring::empty();
    int own = 0, opp = 0;
    for (int i = 0; i < M; ++i) {
      base.add(i, x[i]);
      base.add(M + 1 + i, x[M + i]);
      own += x[i];
      opp += x[M + i];
    }
    if (R::game_ends(own == 0, opp == 0)) return own - opp;
    // First every successor's rank (so the reads can be in flight together), then the values.
    int moves = 0;
    std::uint8_t pits[M];
    std::uint64_t ranks[M];
    Ring rings[M];
    std::int8_t* const same_level = levels_.bytes(n).data();
    const ResidentLevel* const lower = levels_.levels();
    // Every level below n is packed (LevelTables::pack).
    const bool all_packed = levels_.packing() && ResidentLevel::packs(n - 1);
    for (int i = 0; i < M; ++i) {
      if (base.cell(i) == 0) continue;
      Ring& b = rings[moves];
      b = base;
      const bool again = R::apply(b, i);
      const int child_n = n - b.cell(M);
      const std::uint64_t r = index_.rank_gathered(b.cells(), again ? same_ : passed_, child_n);
      __builtin_prefetch(child_n == n ? static_cast<const void*>(&same_level[r])
                         : all_packed ? static_cast<const void*>(lower[child_n].words +
                                                                 r / ResidentLevel::kPerWord)
                                      : lower[child_n].address(r));
      ranks[moves] = r;
      pits[moves] = std::uint8_t(i | (again ? 0x80 : 0));
      ++moves;
    }
    int best = -kMaxTableStones - 1;
    for (int k = 0; k < moves; ++k) {
      const std::uint8_t* b = rings[k].cells();
      const bool again = pits[k] & 0x80;
      const int child_n = n - b[M];
      int child;
      if (child_n < n) {
        child =
            all_packed ? lower[child_n].packed_future(ranks[k]) : lower[child_n].future(ranks[k]);
      } else if ((child = load(same_level[ranks[k]])) == kUnknownValue) {
        // Same level: strictly lower potential.
        Stones c[2 * M];
        for (int j = 0; j < M; ++j) {
          c[j] = again ? b[j] : b[M + 1 + j];
          c[M + j] = again ? b[M + 1 + j] : b[j];
        }
        child = solve(c, n);
        store(same_level[ranks[k]], child);
      }
      const int v = b[M] + (again ? child : -child);
      if (v > best) best = v;
    }
    return best;
  }

  // Solves and stores ranks [begin, end) of level n that are still unknown.
  void solve_range(int n, std::uint64_t begin, std::uint64_t end) {
    if (begin >= end) return;
    Stones x[2 * kMaxPits];
    index_.unrank(begin, n, x);
    std::int8_t* values = levels_.bytes(n).data();
    for (std::uint64_t r = begin;;) {
      if (load(values[r]) == kUnknownValue) store(values[r], solve(x, n));
      if (++r == end) break;
      index_.next(x);
    }
  }

 private:
  // The board a move is played on: the mover's gain accumulates in its kalah, cell M.
  using Ring = ByteArrayBoard<M>;

  static std::int8_t load(const std::int8_t& slot) {
    return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
  }
  static void store(std::int8_t& slot, int v) {
    std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
  }

  const LevelIndex& index_;
  LevelTables& levels_;
  std::uint8_t same_[2 * M], passed_[2 * M];  // ring cell per significance, see the constructor
};

}  // namespace kalah
