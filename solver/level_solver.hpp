// The retrograde kernel: future margins of one level from the levels below it (and itself).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "byte_array_board.hpp"
#include "index.hpp"
#include "level_tables.hpp"
#include "register_board.hpp"
#include "rules.hpp"

namespace kalah {

// Computes entries of level n (levels[n] in bytes) given complete levels below n (packed: pack()),
// for rule policy R and M pits a side. Same-level successors (sowings that stay on the mover's own
// side) are solved on demand by recursion; that terminates because such a move strictly lowers the
// total distance of all stones to their owners' kalahs. Entries may be solved concurrently from
// several threads: a value is written once it is final, and a duplicate computation writes the same
// value.
//
// Moves are R's kernel on a board whose kalahs start at 0 (RegisterBoard<M> up to 7 pits, else
// ByteArrayBoard<M>); tests compare every entry of small tables with a plain minimax over the
// engine.
template <class R, int M>
class LevelSolver {
 public:
  LevelSolver(const LevelIndex& index, LevelTables& levels) : index_(index), levels_(levels) {}

  // Future margin of the arrangement x (2M cells, side to move first) holding n stones.
  int solve(const Stones* x, int n) { return solve(board_of(x), n); }

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
  using Ring = std::conditional_t<(M <= ByteTables::kMaxM), RegisterBoard<M>, ByteArrayBoard<M>>;

  // Future margin of the position on `base` (kalahs empty, n stones in its pits).
  int solve(const Ring& base, int n) {
    if (is_over<R>(base)) return base.final_margin();
    // First every successor's rank (so the reads can be in flight together), then the values.
    int moves = 0;
    std::uint64_t ranks[M];
    Ring children[M];  // each successor seen from its side to move, kalahs as the move left them
    std::int8_t gains[M];
    bool agains[M];
    std::int8_t* const same_level = levels_.bytes(n).data();
    const ResidentLevel* const lower = levels_.levels();
    // Every level below n is packed (LevelTables::pack).
    const bool all_packed = levels_.packing() && ResidentLevel::packs(n - 1);
    unsigned pits = 0;  // the non-empty own pits
    for (int i = 0; i < M; ++i) pits |= unsigned(base.cell(i) != 0) << i;
    for (; pits != 0; pits &= pits - 1) {
      const int i = __builtin_ctz(pits);
      Ring& b = children[moves];
      b = base;
      const bool again = R::apply(b, i);
      const int gain = b.cell(M);
      if (!again) b.flip();
      const int child_n = n - gain;
      const std::uint64_t r = rank(b, child_n);
      __builtin_prefetch(child_n == n ? static_cast<const void*>(&same_level[r])
                         : all_packed ? static_cast<const void*>(lower[child_n].words +
                                                                 r / ResidentLevel::kPerWord)
                                      : lower[child_n].address(r));
      ranks[moves] = r;
      gains[moves] = std::int8_t(gain);
      agains[moves] = again;
      ++moves;
    }
    int best = -kMaxTableStones - 1;
    for (int k = 0; k < moves; ++k) {
      const int child_n = n - gains[k];
      int child;
      if (child_n < n) {
        child =
            all_packed ? lower[child_n].packed_future(ranks[k]) : lower[child_n].future(ranks[k]);
      } else if ((child = load(same_level[ranks[k]])) == kUnknownValue) {
        // Same level: strictly lower potential.
        Ring c = children[k];
        clear_kalahs(c);
        child = solve(c, n);
        store(same_level[ranks[k]], child);
      }
      const int v = gains[k] + (agains[k] ? child : -child);
      if (v > best) best = v;
    }
    return best;
  }

  // The board of the arrangement x, kalahs empty; a RegisterBoard is assembled in registers.
  static Ring board_of(const Stones* x) {
    if constexpr (M <= ByteTables::kMaxM) {
      std::uint64_t w[2] = {0, 0};
      for (int i = 0; i < M; ++i) {
        const int c = M + 1 + i;
        w[i / 8] |= std::uint64_t(x[i]) << (8 * (i % 8));
        w[c / 8] |= std::uint64_t(x[M + i]) << (8 * (c % 8));
      }
      return Ring::from_words(w[0], w[1]);
    } else {
      Ring b = Ring::empty();
      for (int i = 0; i < M; ++i) {
        b.set(i, x[i]);
        b.set(M + 1 + i, x[M + i]);
      }
      return b;
    }
  }
  static void clear_kalahs(Ring& b) {
    if constexpr (M <= ByteTables::kMaxM) {
      b.clear_kalahs();
    } else {
      b.set(M, 0);
      b.set(2 * M + 1, 0);
    }
  }

  // LevelIndex rank of the arrangement of b's pits (n stones).
  std::uint64_t rank(const Ring& b, int n) const {
    if (index_.ranks_by_pairs()) return index_.template rank_board<M>(b.cells(), n);
    Stones x[2 * M];
    for (int j = 0; j < M; ++j) {
      x[j] = Stones(b.cell(j));
      x[M + j] = Stones(b.cell(M + 1 + j));
    }
    return index_.rank(x, n);
  }

  static std::int8_t load(const std::int8_t& slot) {
    return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
  }
  static void store(std::int8_t& slot, int v) {
    std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
  }

  const LevelIndex& index_;
  LevelTables& levels_;
};

}  // namespace kalah
