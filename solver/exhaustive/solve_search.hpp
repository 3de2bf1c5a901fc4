// The solver's null-window-capable alpha-beta over future margins, with TT, ETC and oracle probes.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "db/probe.hpp"
#include "engine/node_loop.hpp"
#include "engine/oracle.hpp"
#include "exhaustive/search_control.hpp"
#include "exhaustive/solve_board.hpp"
#include "exhaustive/solve_memo.hpp"
#include "exhaustive/solve_tt.hpp"

namespace kalah::solve_detail {

// Searches the future margin f of boards of type B (future: margin minus kalah difference; it lies
// in [least_future(n), n] for n stones in pits and has the parity of n). search(b, n, alpha, beta)
// is fail-soft: a result v <= alpha proves f <= v, v >= beta proves f >= v, otherwise f == v.
// Once the deadline has passed, results are meaningless and stopped() is true.
template <class B>
class Search : public SearchControl {
 public:
  using R = typename B::Rules;

  // Boards with fewer stones in pits skip the TT (cheap subtrees); ETC needs at least
  // kEtcMinStones.
  static constexpr int kTableMinStones = 3;
  static constexpr int kEtcMinStones = 10;
  // Nodes this close to the search's root ask the oracle whatever their stones in pits (an
  // opening book beyond the database's levels may know them); deeper ones only inside its levels.
  static constexpr int kBookPlies = 6;

  // memo (may be null) answers boards with at most memo->max_stones() stones in pits, after the
  // oracle (may be null) has answered those it covers. The TT holds only boards above both, and
  // above the oracle's levels by more than `untabled` stones (SolveOptions::untabled_above_db).
  // resident (null, or the oracle itself as a Probe with its table in memory): boards of its
  // levels are ranked here and read from its memory directly.
  Search(TableView tt, ExactOracle* oracle, ExactMemo<B>* memo, const Probe* resident, int untabled)
      : SearchControl(tt), oracle_(oracle), memo_(memo) {
    if (oracle_ != nullptr) oracle_max_ = oracle_->max_stones();
    if (memo_ != nullptr) memo_max_ = memo_->max_stones();
    const int above_oracle = oracle_max_ >= 0 ? oracle_max_ + 1 + untabled : 0;
    table_min_ = std::max({kTableMinStones, above_oracle, memo_max_ + 1});
    if (resident != nullptr) {
      if (B::kFixedCells != 0 && resident->order().cells() != B::kFixedCells)
        throw std::logic_error("solve: the database's board size is not the search's");
      resident_ = resident;
      order_ = &resident->order();
      for (int n = 0; n <= oracle_max_; ++n) level_[n] = resident->resident_level(n);
    }
  }

  // Boards with at least this many stones in pits use the TT.
  int table_min_stones() const { return table_min_; }

  // Several threads search one root: they share the TT (SolveTable needs no locks) and `busy`, a
  // zeroed table of kBusySlots words that all threads are given, and each stops when *stop becomes
  // true. As in ABDADA, a thread marks a child busy while it searches it (children with at least
  // kBusyAbove stones in pits more than the TT's minimum), and a thread that meets a busy child
  // other than a node's first puts it off until the node's other children are done: by then the
  // other thread's result is usually in the TT. Every poll, a thread reads the entries of the
  // nodes on its path (abandon_settled_ancestor): one that now settles its node's window (another
  // thread stored it) ends the search below that node, which answers from it (or is searched again
  // when a later store replaced the entry). restart() clears a stop for the next search() call;
  // a passed deadline stops it again. set_parallel(nullptr, nullptr) returns to one thread.
  static constexpr std::size_t kBusySlots = std::size_t(1) << 16;
  static constexpr int kBusyAbove = 4;
  void set_parallel(const std::atomic<bool>* stop, std::uint64_t* busy) {
    stop_ = stop;
    busy_ = busy;
    busy_min_ = table_min_ + kBusyAbove;
  }

  // The every-move analysis's defence rounds (R::kDefenceRounds; docs/SOLVER.md, "Every move:
  // one analysis"): at nodes fewer than `plies` moves from the search's root where `side` is to
  // move (0: the side to move at the root, 1: the other), the moves left after the database
  // children are searched in rounds, each move within a node budget (`budget` nodes in the first
  // round, doubled every round): a move whose search runs past its budget is abandoned, storing
  // nothing above the subtrees it finished, and taken up again in the next round; a move settled
  // within it counts as in the plain loop. side -1: none. Values do not change, only node counts.
  void set_defence_rounds(int side, int plies, std::uint64_t budget) {
    rounds_side_ = side;
    rounds_plies_ = plies;
    rounds_budget_ = budget;
  }

  // Calls *trace (when not null; it outlives the search) with each board expand() generates the
  // moves of (expanded()): its position() and the window it is searched in.
  using ExpandTrace = std::function<void(const Position&, int alpha, int beta)>;
  void set_expand_trace(const ExpandTrace* trace) { trace_ = trace; }

  // At every node the TT covers, *source's stored move (when it has one) is searched first
  // instead of the TT's own: SolveOptions::move_source. Null: none.
  void set_move_source(const TableView* source) { move_source_ = source; }

  // Hook of ExactMemo::value: its solved positions count as nodes.
  void count_solved() {
    if ((++nodes_ & kPollMask) == 0) poll();
  }
  void oracle_hit() { ++oracle_hits_; }
  std::uint64_t oracle_hits() const { return oracle_hits_; }
  std::uint64_t expanded() const { return expanded_; }

  // lookup: where b is looked up, when the caller already computed it (0: not computed): b's TT
  // key when n >= table_min_stones(), its storage rank + 1 when n is within a resident probe's
  // levels (make_child). [lower, upper]: bounds on the
  // future already read from the TT by the caller (kNoBound: none). The answers that need no
  // search (the game's end, the bounds, the resident database, the caller's bounds) are inline:
  // a third of the nodes are database children, which then cost no call.
  [[gnu::always_inline]] int search(const B& b, int n, int alpha, int beta,
                                    std::uint64_t lookup = 0, int lower = -kNoBound,
                                    int upper = kNoBound) {
    if ((++nodes_ & kPollMask) == 0) poll();
    if (halted()) return 0;
    int over;
    if (game_over(b, n, &over)) return over;
    if (beta <= least_future(n)) return least_future(n);
    if (alpha >= n) return n;
    if (n <= oracle_max_ && resident_ != nullptr) {
      ++oracle_hits_;
      return level_[n].future(
          lookup != 0 ? lookup - 1 : order_->template rank_cells<B::kFixedCells>(b.cells(), n));
    }
    if (int v; settles(std::max(least_future(n), lower), std::min(n, upper), alpha, beta, &v))
      return v;
    return expand(b, n, alpha, beta, lookup);
  }

  static constexpr int kNoBound = 32767;  // SolveEntry's bound for "none"

  // The least future margin of a board with n stones in pits whose game is not over: the mover
  // has a move that banks R::kLeastGain stones, and the opponent gets at most the rest.
  static constexpr int least_future(int n) { return 2 * R::kLeastGain - n; }

 private:
  // search() past its inline answers: the oracle's other answers, the memo, the TT, the moves.
  int expand(const B& b, int n, int alpha, int beta, std::uint64_t lookup) {
    if (n <= oracle_max_ || (ply_ < kBookPlies && oracle_ != nullptr)) {
      if (const std::optional<int> f = oracle_->future(b.position())) {
        ++oracle_hits_;
        return *f;
      }
    }
    if (n <= memo_max_) return memo_->value(b, n, *this);

    // Once more when another thread settled the node while this one searched it: the TT then
    // answers at the top (or, when a later store replaced that entry, the node is searched again).
    for (;;) {
      Node node{.b = b,
                .n = n,
                .w = {.alpha = alpha, .beta = beta, .best = -n - 1},
                .alpha0 = alpha,
                .key = 0,
                .lo = least_future(n),
                .hi = n,
                .tt_move = -1};
      if (n >= table_min_) {
        node.key = lookup != 0 ? lookup : b.key();
        if (int v; probe_table(node, &v)) return v;
        if (move_source_ != nullptr) [[unlikely]] {
          if (SolveEntry e; move_source_->probe(node.key, e) && e.move >= 0) node.tt_move = e.move;
        }
      }
      ++expanded_;
      if (trace_ != nullptr) [[unlikely]]
        (*trace_)(b.position(), alpha, beta);
      if (busy_ != nullptr && ply_ < kPathPlies) path_[ply_] = {node.key, alpha, beta};
      const std::uint64_t nodes_before = nodes_;
      if (const std::optional<int> v = search_moves(node)) return *v;
      if (ply_ == abandon_ply_) {
        abandon_ply_ = kNoPly;
        if (!halted()) {
          lookup = node.key;
          continue;
        }
      }
      if (halted()) return 0;
      if (n >= table_min_) store_result(node, std::bit_width(nodes_ - nodes_before));
      return node.w.best;
    }
  }

  static constexpr int kMaxChildren = B::kMaxM;  // pits a side at most

  // A move of the node: the board after it, the stones it put into the mover's kalah, whether
  // the mover goes on (extra turn), and its key in the node's MoveQueue (order_key).
  struct Child {
    B b;
    std::uint64_t lookup;  // search()'s lookup of b (its TT key or its storage rank + 1), or 0
    int gain;
    int order;
    std::int16_t lower, upper;  // bounds on the child's future from the TT, when it was probed
    bool again;
    std::int8_t pit;
  };

  // One node's search state: the window and the best child so far, the TT's bounds and move.
  struct Node {
    const B& b;
    int n;
    Window w;
    int alpha0;         // the caller's alpha
    std::uint64_t key;  // the TT key when n >= table_min_
    int lo, hi;         // proven bounds on the future from the TT
    int tt_move;        // the TT's best move, -1 none
  };

  // Narrows the node's bounds by its TT entry; true (with *v) when they settle the window.
  bool probe_table(Node& node, int* v) {
    SolveEntry e;
    if (!tt_.probe(node.key, e)) return false;
    node.lo = std::max(node.lo, int(e.lower));
    node.hi = std::min(node.hi, int(e.upper));
    node.tt_move = e.move;
    return settles(node.lo, node.hi, node.w.alpha, node.w.beta, v);
  }

  // Searches the node's moves: the TT move first, then the others in order. Returns a value
  // when an enhanced transposition cutoff ends the node (already stored); else node.w.best holds
  // the result (meaningless once halted).
  std::optional<int> search_moves(Node& node) {
    const B& b = node.b;
    const int opp_stones = node.n - b.own_stones();  // make_child()'s order counts from it
    const bool rounds = mover_ == rounds_side_ && ply_ < rounds_plies_;
    // The stored best move first: it often ends the node before the others are generated (in
    // defence rounds, first in the first round).
    const bool searched_tt_move = !rounds && node.tt_move >= 0 && b.pit(node.tt_move) > 0;
    if (ply_ < kLinePlies) {
      int moves = 0;
      for (int i = 0; i < b.m(); ++i) moves += b.pit(i) != 0;
      line_moves_[ply_] = std::int8_t(moves);
      line_rank_[ply_] = 0;
      line_depth_ = ply_;
    }
    if (searched_tt_move) {
      Child c;
      make_child(b, node.n, opp_stones, node.tt_move, c);
      if (visit(node, c)) return std::nullopt;
    }
    Children kids;
    for (int i = 0; i < b.m(); ++i) {
      if ((rounds || i != node.tt_move) && b.pit(i) != 0) {
        Child& c = kids.child[i];
        make_child(b, node.n, opp_stones, i, c);
        kids.queue.push(c.order);
      }
    }
    const auto visit_child = [&](int pit) __attribute__((always_inline)) {
      return visit(node, kids.child[pit]);
    };
    // Children inside the database come first in the order and are exact at the cost of one
    // read: they are visited before the enhanced transposition cutoff reads the other children's
    // TT entries, which a cutoff among them spares.
    int k = 0;
    if (search_in_order(kids.queue, k, visit_child, move_key(kDatabaseChild, 0)))
      return std::nullopt;
    if (k == kids.queue.size()) return std::nullopt;
    if (node.n >= kEtcMinStones) {
      if (const std::optional<int> v = enhanced_cutoff(node, kids, k)) return v;
    }
    if (rounds) {
      defence_rounds(node, kids, k);
    } else if (busy_ == nullptr) {
      search_in_order(kids.queue, k, visit_child);
    } else {
      visit_shared(node, kids, k, searched_tt_move);
    }
    return std::nullopt;
  }

  // The moves of a node but the TT move: child[i] after pit i, in the order of `queue`.
  struct Children {
    Child child[kMaxChildren];
    MoveQueue<kMaxChildren> queue;
  };

  // The children from the k-th (the TT move first, then in order) in rounds of doubling node
  // budgets (set_defence_rounds), until one cuts the node off or every one is settled.
  void defence_rounds(Node& node, Children& kids, int k) {
    int pending[kMaxChildren], count = 0;
    for (int j = k; j < kids.queue.size(); ++j) pending[count++] = kids.queue.take(j);
    if (int* tt = std::find(pending, pending + count, node.tt_move); tt != pending + count)
      std::rotate(pending, tt, tt + 1);
    for (std::uint64_t budget = rounds_budget_; count > 0; budget *= 2) {
      int left = 0;
      for (int j = 0; j < count; ++j) {
        const std::uint64_t outer = budget_end_;
        const std::uint64_t inner = std::min(outer, nodes_ + budget);
        budget_end_ = inner;
        if (ply_ < kLinePlies) line_rank_[ply_] = std::int8_t(k + j);
        const Child& c = kids.child[pending[j]];
        const bool end = busy_ != nullptr ? visit_marked(node, c) : visit(node, c);
        budget_end_ = outer;
        if (halted()) return;  // stopped, or an enclosing budget ran out
        if (nodes_ >= inner) {
          pending[left++] = pending[j];  // abandoned: again in the next round
        } else if (end) {
          return;
        }
      }
      count = left;
    }
  }

  // Searches child c of the node within its window and raises the window by the child's value;
  // true when that ends the node (cutoff or stop).
  [[gnu::always_inline]] bool visit(Node& node, const Child& c) {
    const int nc = node.n - c.gain;
    const int alpha = node.w.alpha, beta = node.w.beta;
    if (ply_ < kLinePlies) {
      line_pit_[ply_] = c.pit;
      ++line_rank_[ply_];
      line_depth_ = ply_ + 1;
    }
    ++ply_;
    mover_ ^= int(!c.again);
    const int v =
        c.again
            ? c.gain + search(c.b, nc, alpha - c.gain, beta - c.gain, c.lookup, c.lower, c.upper)
            : c.gain - search(c.b, nc, c.gain - beta, c.gain - alpha, c.lookup, c.lower, c.upper);
    mover_ ^= int(!c.again);
    --ply_;
    return halted() || node.w.raise(v, c.pit);
  }

  // Enhanced transposition cutoff over the children from the k-th: a child's stored bound may
  // already refute the window. The k-th is the best of them (search_in_order took it at the
  // database floor), the others are read as they lie. Returns the node's value (stored) when one
  // does; keeps the bounds it read in the children for their searches.
  std::optional<int> enhanced_cutoff(Node& node, Children& kids, int k) {
    for (int j = k; j < kids.queue.size(); ++j) {
      Child& c = kids.child[kids.queue.pit_at(j)];
      if (node.n - c.gain < table_min_) continue;  // c.lookup is no TT key
      SolveEntry e;
      if (!tt_.probe(c.lookup, e)) continue;
      c.lower = e.lower;
      c.upper = e.upper;
      const int v = std::max(node.w.best, c.again ? c.gain + e.lower : c.gain - e.upper);
      if (v >= node.w.beta) {
        tt_.store(node.key, v, node.hi, c.pit, 0);
        return v;
      }
    }
    return std::nullopt;
  }

  // The children from the k-th in order when several threads search one root (set_parallel):
  // a child that another thread is searching is put off until the others are done, unless it is
  // the node's eldest.
  void visit_shared(Node& node, Children& kids, int k, bool searched_tt_move) {
    int later[kMaxChildren], deferred = 0;
    for (; k < kids.queue.size(); ++k) {
      const Child& c = kids.child[kids.queue.take(k)];
      const bool eldest = k == 0 && !searched_tt_move;
      if (!eldest && node.n - c.gain >= busy_min_ &&
          busy_slot(c).load(std::memory_order_relaxed) == c.lookup) {
        later[deferred++] = c.pit;
        continue;
      }
      if (visit_marked(node, c)) return;
    }
    for (int j = 0; j < deferred; ++j)
      if (visit_marked(node, kids.child[later[j]])) return;
  }

  // visit() with the child marked busy while it is searched (children deep enough to be worth it).
  bool visit_marked(Node& node, const Child& c) {
    if (node.n - c.gain < busy_min_) return visit(node, c);
    std::atomic_ref<std::uint64_t> slot = busy_slot(c);
    slot.store(c.lookup, std::memory_order_relaxed);
    const bool end = visit(node, c);
    std::uint64_t mine = c.lookup;
    slot.compare_exchange_strong(mine, 0, std::memory_order_relaxed);
    return end;
  }
  std::atomic_ref<std::uint64_t> busy_slot(const Child& c) {
    return std::atomic_ref<std::uint64_t>(busy_[c.lookup & (kBusySlots - 1)]);
  }

  // Stores the node's result as a bound or the exact future, with the work it took.
  void store_result(const Node& node, int work) {
    const Window& w = node.w;
    if (w.best >= w.beta) {
      tt_.store(node.key, w.best, node.hi, w.best_pit, work);
    } else if (w.best <= node.alpha0) {
      tt_.store(node.key, node.lo, w.best, w.best_pit, work);
    } else {
      tt_.store(node.key, w.best, w.best, w.best_pit, work);
    }
  }

  // The child after own pit i of b (n stones in pits, opp_stones of them in the opponent's pits).
  [[gnu::always_inline]] void make_child(const B& b, int n, int opp_stones, int i, Child& c) {
    c.b = b;
    c.pit = std::int8_t(i);
    c.gain = c.b.play(i, c.again);
    c.lookup = 0;
    c.lower = -kNoBound;
    c.upper = kNoBound;
    const int nc = n - c.gain;
    // Neither a child's database value nor its TT line is prefetched: neither paid for itself
    // (docs/NOT-KEPT.md).
    if (nc >= table_min_) {
      c.lookup = c.b.key();
    } else if (nc <= oracle_max_ && resident_ != nullptr) {
      c.lookup = order_->template rank_cells<B::kFixedCells>(c.b.cells(), nc) + 1;
    } else if (nc <= memo_max_ && nc > oracle_max_) {
      memo_->prefetch(c.b, nc);
    }
    // Children inside the database first (exact at the cost of a probe: a cutoff among them
    // spares the searched ones), then extra turns, then by stones won, then (rule sets with
    // R::kOrderByStonesHanded) by fewer stones added to the opponent's pits (captures count as
    // taken away), then nearer the kalah (docs/SOLVER.md, "Move ordering"): order_key, then the
    // higher pit (MoveQueue's ties). Clamped fields only weaken the order, never the result.
    int handed = 0;
    if constexpr (R::kOrderByStonesHanded) {
      const int opp_after = c.again ? nc - c.b.own_stones() : c.b.own_stones();
      handed = std::clamp(opp_after - opp_stones, -255, 255);
    }
    c.order = move_key(order_key(nc <= oracle_max_, c.again, c.gain, handed), i);
  }

  // A child's priority, the higher first; its fields from the most significant: the database
  // mark, the extra-turn mark, the stones won (8 bits, clamped) and 255 - the stones handed (9
  // bits, handed in [-255, 255]).
  static constexpr int kOrderGainShift = 9;
  static constexpr int kOrderAgain = 1 << (kOrderGainShift + 8);
  static constexpr int kDatabaseChild = kOrderAgain << 1;  // the mark of a child in the database
  static_assert(2 * kDatabaseChild < (1 << 26), "within MoveQueue's priorities");
  static int order_key(bool database, bool again, int gain, int handed) {
    return (database ? kDatabaseChild : 0) + (again ? kOrderAgain : 0) +
           (std::min(gain, 255) << kOrderGainShift) + (255 - handed);
  }

  ExactOracle* oracle_;
  ExactMemo<B>* memo_;
  int oracle_max_ = -1;
  int memo_max_ = -1;
  int table_min_ = kTableMinStones;
  const Probe* resident_ = nullptr;
  const StorageOrder* order_ = nullptr;
  ResidentLevel level_[256] = {};  // resident_'s levels
  const ExpandTrace* trace_ = nullptr;
  const TableView* move_source_ = nullptr;
  int busy_min_ = 0;  // children with at least this many stones in pits are marked busy
  std::uint64_t oracle_hits_ = 0;
  std::uint64_t expanded_ = 0;  // nodes whose moves were searched
  int mover_ = 0;  // the side to move at the current node: 0 as at the search's root, 1 the other
  int rounds_side_ = -1, rounds_plies_ = 0;  // set_defence_rounds()
  std::uint64_t rounds_budget_ = 0;
};

}  // namespace kalah::solve_detail
