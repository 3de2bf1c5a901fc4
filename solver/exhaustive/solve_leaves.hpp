// Where the solver's search finds a board's value without searching it (the oracle, the memo,
// the resident table), which boards its TT holds, and the children of a node with their lookups
// and order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "db/probe.hpp"
#include "engine/node_loop.hpp"
#include "engine/oracle.hpp"
#include "solver/exhaustive/solve_memo.hpp"
#include "solver/exhaustive/solve_tt.hpp"
#include "solver/exhaustive/solve_tuning.hpp"

namespace kalah::solve_detail {

// A move of a node: the board after it, the stones it put into the mover's kalah, whether the
// mover goes on (extra turn), and its key in the node's MoveQueue (child_order).
template <class B>
struct SolveChild {
  B b;
  std::uint64_t lookup;  // search()'s lookup of b (its TT key or its storage rank + 1), or 0
  int gain;
  int order;
  std::int16_t lower, upper;  // bounds on the child's future from the TT, when it was probed
  bool again;
  std::int8_t pit;
};

// The moves of a node but the TT move: child[i] after pit i, in the order of `queue`.
template <class B>
struct SolveChildren {
  static constexpr int kMax = B::kMaxM;  // pits a side at most
  SolveChild<B> child[kMax];
  MoveQueue<kMax> queue;
};

// A child's priority, the higher first; its fields from the most significant: the database mark,
// the extra-turn mark, the stones won (8 bits, clamped) and 255 - the stones handed (9 bits,
// handed in [-255, 255]).
inline constexpr int kOrderGainShift = 9;
inline constexpr int kOrderAgain = 1 << (kOrderGainShift + 8);
inline constexpr int kDatabaseChild = kOrderAgain << 1;  // the mark of a child in the database
static_assert(2 * kDatabaseChild < (1 << 26), "within MoveQueue's priorities");
constexpr int child_order(bool database, bool again, int gain, int handed) {
  return (database ? kDatabaseChild : 0) + (again ? kOrderAgain : 0) +
         (std::min(gain, 255) << kOrderGainShift) + (255 - handed);
}

// The sources of exact values below the search of boards B and the TT's floor. The oracle (may be
// null) answers the boards it covers (its levels 0..oracle_max), the memo (may be null) those with
// at most memo_max stones in pits after it; the TT holds only boards above both, and above the
// oracle's levels by more than `tt_skip` stones (SolveOptions::tt_skip_above_db), and never
// boards of fewer than kTTMinStones (cheap subtrees). resident (null, or the oracle itself as a
// Probe with its table in memory): boards of its levels are ranked here and read from its memory.
template <class B>
struct SolveLeaves {
  using R = typename B::Rules;
  static constexpr int kTTMinStones = 3;

  SolveLeaves(ExactOracle* oracle_in, ExactMemo<B>* memo_in, const Probe* resident_in, int tt_skip)
      : oracle(oracle_in), memo(memo_in) {
    if (oracle != nullptr) oracle_max = oracle->max_stones();
    if (memo != nullptr) memo_max = memo->max_stones();
    const int above_oracle = oracle_max >= 0 ? oracle_max + 1 + tt_skip : 0;
    tt_min = std::max({kTTMinStones, above_oracle, memo_max + 1});
    if (resident_in != nullptr) {
      if (B::kFixedCells != 0 && resident_in->order().cells() != B::kFixedCells)
        throw std::logic_error("solve: the database's board size is not the search's");
      resident = resident_in;
      order = &resident_in->order();
      for (int n = 0; n <= oracle_max; ++n) level[n] = resident_in->resident_level(n);
    }
  }

  // The child after own pit i of b (n stones in pits, opp_stones of them in the opponent's pits).
  [[gnu::always_inline]] void make_child(const B& b, int n, int opp_stones, int i,
                                         SolveChild<B>& c) const {
    c.b = b;
    c.pit = std::int8_t(i);
    c.gain = c.b.play(i, c.again);
    c.lookup = 0;
    c.lower = -kNoBound;
    c.upper = kNoBound;
    const int nc = n - c.gain;
    // Neither a child's database value nor its TT line is prefetched: neither paid for itself
    // (docs/NOT-KEPT.md).
    if (nc >= tt_min) {
      c.lookup = c.b.key();
    } else if (nc <= oracle_max && resident != nullptr) {
      c.lookup = order->template rank_cells<B::kFixedCells>(c.b.cells(), nc) + 1;
    } else if (nc <= memo_max && nc > oracle_max) {
      memo->prefetch(c.b, nc);
    }
    // Children inside the database first (exact at the cost of a probe: a cutoff among them
    // spares the searched ones), then extra turns, then by stones won, then (rule sets with
    // SolveTuning<R>::kOrderByStonesHanded) by fewer stones added to the opponent's pits (captures
    // count as taken away), then nearer the kalah (docs/SOLVER.md, "Move ordering"): child_order,
    // then the higher pit (MoveQueue's ties). Clamped fields only weaken the order, never the
    // result.
    int handed = 0;
    if constexpr (SolveTuning<R>::kOrderByStonesHanded) {
      const int opp_after = c.again ? nc - c.b.own_stones() : c.b.own_stones();
      handed = std::clamp(opp_after - opp_stones, -255, 255);
    }
    c.order = move_key(child_order(nc <= oracle_max, c.again, c.gain, handed), i);
  }

  ExactOracle* oracle;
  ExactMemo<B>* memo;
  int oracle_max = -1;
  int memo_max = -1;
  int tt_min = kTTMinStones;  // boards with at least this many stones in pits use the TT
  const Probe* resident = nullptr;
  const StorageOrder* order = nullptr;
  ResidentLevel level[256] = {};  // resident's levels
};

}  // namespace kalah::solve_detail
