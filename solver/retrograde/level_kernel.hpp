// The retrograde kernel: future margins of one level from the levels below it (and itself).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "db/index.hpp"
#include "engine/byte_array_board.hpp"
#include "engine/oracle.hpp"
#include "engine/register_board.hpp"
#include "engine/rules.hpp"
#include "solver/retrograde/level_tables.hpp"

namespace kalah {

// The moves of level entries for rule policy R and M pits a side: R's kernel on a board whose
// kalahs start at 0 (RegisterBoard<M> up to 7 pits, else ByteArrayBoard<M>), each successor seen
// from its side to move and ranked in the generator's order (LevelIndex).
template <class R, int M>
class LevelMoves {
 public:
  // The board a move is played on: the mover's gain accumulates in its kalah, cell M.
  using Ring = std::conditional_t<(M <= ByteTables::kMaxM), RegisterBoard<M>, ByteArrayBoard<M>>;

  explicit LevelMoves(const LevelIndex& index) : index_(index) {}

  // The board of the arrangement x (2M cells, side to move first), kalahs empty; a RegisterBoard
  // is assembled in registers.
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

  // Whether the game is over on `base` (kalahs empty); then *value is its future margin.
  static bool over(const Ring& base, int* value) {
    if (!is_over<R>(base)) return false;
    *value = base.final_margin();
    return true;
  }

  // What a move did: the mover's gain (stones put into its kalah), whether it moves again, and
  // the stones left in pits.
  struct Played {
    int gain;
    bool again;
    int child_n;
  };
  // Plays own pit i (non-empty) of `base` (kalahs empty, n stones in its pits, the game not over)
  // into `child`, seen from its side to move (kalahs as the move left them).
  [[gnu::always_inline]] static Played play(const Ring& base, int i, int n, Ring& child) {
    child = base;
    const bool again = R::apply(child, i);
    const int gain = child.cell(M);
    if (!again) child.flip();
    return {gain, again, n - gain};
  }
  // The non-empty own pits of `base` as a bit mask (bit i: own pit i).
  static unsigned movable(const Ring& base) {
    unsigned pits = 0;
    for (int i = 0; i < M; ++i) pits |= unsigned(base.cell(i) != 0) << i;
    return pits;
  }

  // A successor board as an arrangement to value: both kalahs emptied.
  static Ring without_kalahs(const Ring& board) {
    Ring child = board;
    if constexpr (M <= ByteTables::kMaxM) {
      child.clear_kalahs();
    } else {
      child.set(M, 0);
      child.set(2 * M + 1, 0);
    }
    return child;
  }

  // The potential of the arrangement x: every stone's distance to its owner's kalah (own pit i,
  // 0-based, is M - i sowing steps from it; the opponent's pits likewise), at most n * M. A move
  // that leaves every stone in the pits (child_n == n) sows within the mover's side only (no
  // stone reaches the kalah, so there is no capture and no relay): it moves s stones nearer,
  // lowering the potential by s(s+1)/2, and the turn's passing keeps it. So a level solved in
  // increasing potential finds its same-level successors solved.
  static int potential(const Stones* x) {
    int p = 0;
    for (int i = 0; i < M; ++i) p += (M - i) * (x[i] + x[M + i]);
    return p;
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

  const LevelIndex& index() const { return index_; }

 private:
  const LevelIndex& index_;
};

// Computes entries of level n (levels[n] in bytes) given complete levels below n (packed: pack()),
// for rule policy R and M pits a side, with LevelMoves. Same-level successors (sowings that stay on
// the mover's own side) are computed on demand by recursion; that terminates because such a move
// lowers the potential (LevelMoves::potential). Entries may be computed
// concurrently from several threads: a value is written once it is final, and a duplicate
// computation writes the same value. Tests compare every entry of small tables with a plain minimax
// over the engine.
template <class R, int M>
class LevelKernel {
 public:
  LevelKernel(const LevelIndex& index, LevelTables& levels) : moves_(index), levels_(levels) {}

  // Future margin of the arrangement x (2M cells, side to move first) holding n stones.
  int value(const Stones* x, int n) { return value(Moves::board_of(x), n); }

  // Computes and stores the entries of ranks [begin, end) of level n that are still unknown.
  void compute_range(int n, std::uint64_t begin, std::uint64_t end) {
    if (begin >= end) return;
    Stones x[2 * kMaxPits];
    moves_.index().unrank(begin, n, x);
    std::int8_t* values = levels_.bytes(n).data();
    for (std::uint64_t r = begin;;) {
      if (load(values[r]) == kUnknownValue) store(values[r], value(x, n));
      if (++r == end) break;
      moves_.index().next(x);
    }
  }

 private:
  using Moves = LevelMoves<R, M>;
  using Ring = typename Moves::Ring;

  // Future margin of the position on `base` (kalahs empty, n stones in its pits).
  int value(const Ring& base, int n) {
    int over;
    if (Moves::over(base, &over)) return over;
    // First every successor's rank (so the reads can be in flight together), then the values.
    int moves = 0;
    std::uint64_t ranks[M];
    Ring children[M];
    std::int8_t gains[M];
    bool agains[M];
    std::int8_t* const same_level = levels_.bytes(n).data();
    const ResidentLevel* const lower = levels_.levels();
    // Every level below n is packed (LevelTables::pack).
    const bool all_packed = levels_.packing() && ResidentLevel::packs(n - 1);
    for (unsigned pits = Moves::movable(base); pits != 0; pits &= pits - 1) {
      const auto played = Moves::play(base, __builtin_ctz(pits), n, children[moves]);
      const int child_n = played.child_n;
      const std::uint64_t r = moves_.rank(children[moves], child_n);
      __builtin_prefetch(child_n == n ? static_cast<const void*>(&same_level[r])
                         : all_packed ? static_cast<const void*>(lower[child_n].words +
                                                                 r / ResidentLevel::kPerWord)
                                      : lower[child_n].address(r));
      ranks[moves] = r;
      gains[moves] = std::int8_t(played.gain);
      agains[moves] = played.again;
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
        child = value(Moves::without_kalahs(children[k]), n);
        store(same_level[ranks[k]], child);
      }
      const int v = future_after_move(gains[k], agains[k], child);
      if (v > best) best = v;
    }
    return best;
  }

  static std::int8_t load(const std::int8_t& slot) {
    return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
  }
  static void store(std::int8_t& slot, int v) {
    std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
  }

  Moves moves_;
  LevelTables& levels_;
};

}  // namespace kalah
