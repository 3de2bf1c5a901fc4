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
#include "solver/exhaustive/search_control.hpp"
#include "solver/exhaustive/solve_board.hpp"
#include "solver/exhaustive/solve_leaves.hpp"
#include "solver/exhaustive/solve_memo.hpp"
#include "solver/exhaustive/solve_tt.hpp"

namespace kalah::solve_detail {

// Searches the future margin f of boards of type B (future: margin minus kalah difference; it lies
// in [least_future(n), n] for n stones in pits and has the parity of n). search(b, n, alpha, beta)
// is fail-soft: a result v <= alpha proves f <= v, v >= beta proves f >= v, otherwise f == v.
// Once the deadline has passed, results are meaningless and stopped() is true.
template <class B>
class Search : public SearchControl {
 public:
  using R = typename B::Rules;

  // ETC needs at least kEtcMinStones stones in pits.
  static constexpr int kEtcMinStones = 10;
  // Nodes this close to the search's root ask the oracle whatever their stones in pits (the
  // database's opening book, which `solve --book` fills, may hold them); deeper ones only inside
  // its levels. Not --book-plies: that is how deep a book is written.
  static constexpr int kOracleEveryNodePlies = 6;

  // The oracle, the memo and the resident table at its leaves, and the TT's floor: SolveLeaves.
  Search(TTView tt, ExactOracle* oracle, ExactMemo<B>* memo, const Probe* resident, int tt_skip)
      : SearchControl(tt), leaves_(oracle, memo, resident, tt_skip) {}

  // Boards with at least this many stones in pits use the TT.
  int tt_min_stones() const { return leaves_.tt_min; }

  // Calls *trace (when not null; it outlives the search) with each board expand() generates the
  // moves of (expanded()): its position() and the window it is searched in.
  using ExpandTrace = std::function<void(const Position&, int alpha, int beta)>;
  void set_expand_trace(const ExpandTrace* trace) { trace_ = trace; }

  // At every node the TT covers, *source's stored move (when it has one) is searched first
  // instead of the TT's own: SolveOptions::move_source. Null: none.
  void set_move_source(const TTView* source) { move_source_ = source; }

  // Hook of ExactMemo::value: its solved positions count as nodes.
  void count_solved() {
    if ((++nodes_ & kPollMask) == 0) poll();
  }
  void oracle_hit() { ++oracle_hits_; }
  std::uint64_t oracle_hits() const { return oracle_hits_; }
  std::uint64_t expanded() const { return expanded_; }
  // Nodes settled by TT entries: their own, the one their parent read for the enhanced
  // transposition cutoff, or their children's (the cutoff itself).
  std::uint64_t tt_cutoffs() const { return tt_cutoffs_; }

  // lookup: where b is looked up, when the caller already computed it (0: not computed): b's TT
  // key when n >= tt_min_stones(), its storage rank + 1 when n is within a resident probe's
  // levels (make_child). [lower, upper]: bounds on the
  // future already read from the TT by the caller (kNoBound: none). The answers that need no
  // search (the game's end, the bounds, the resident database, the caller's bounds) are inline:
  // a third of the nodes are database children, which then cost no call. The steps are numbered
  // as docs/SOLVER.md ("One node, step by step") describes them.
  [[gnu::always_inline]] int search(const B& b, int n, int alpha, int beta,
                                    std::uint64_t lookup = 0, int lower = -kNoBound,
                                    int upper = kNoBound) {
    // Step 1: stop.
    if ((++nodes_ & kPollMask) == 0) poll();
    if (halted()) return 0;
    // Step 2: the game's own bounds.
    int over;
    if (game_over(b, n, &over)) return over;
    if (beta <= least_future(n)) return least_future(n);
    if (alpha >= n) return n;
    // Step 3: the database in memory.
    if (n <= leaves_.oracle_max && leaves_.resident != nullptr) {
      ++oracle_hits_;
      return leaves_.level[n].future(
          lookup != 0 ? lookup - 1
                      : leaves_.order->template rank_cells<B::kFixedCells>(b.cells(), n));
    }
    // Step 4: the caller's bounds.
    if (int v; settles(std::max(least_future(n), lower), std::min(n, upper), alpha, beta, &v)) {
      // Past the checks above the game's own bounds settle only when they meet; else the caller's
      // bounds, read from the TT for the enhanced transposition cutoff, did.
      tt_cutoffs_ += least_future(n) != n;
      return v;
    }
    return expand(b, n, alpha, beta, lookup);
  }

  // The least future margin of a board with n stones in pits whose game is not over: the mover
  // has a move that banks R::kLeastGain stones, and the opponent gets at most the rest.
  static constexpr int least_future(int n) { return 2 * R::kLeastGain - n; }

  // search() of b as a node `ply` moves below the test's root with `mover` to move there (0: the
  // root's side to move, for the defence rounds), within `budget` more nodes: nullopt when the
  // budget ran out or the search stopped first (stopped() tells which). What it proved of the
  // subtrees it finished stays in the TT, so a later call with a larger budget starts from there.
  std::optional<int> search_within(const B& b, int n, int alpha, int beta, int ply, int mover,
                                   std::uint64_t budget) {
    const int ply0 = ply_, mover0 = mover_;
    const std::uint64_t end0 = budget_end_;
    for (int p = 0; p < std::min(ply, kPathPlies); ++p) path_[p].key = 0;  // no node of this search
    ply_ = ply;
    mover_ = mover;
    budget_end_ = std::min(end0, nodes_ + budget);
    const int v = search(b, n, alpha, beta);
    const bool out = halted();
    ply_ = ply0;
    mover_ = mover0;
    budget_end_ = end0;
    return out ? std::nullopt : std::optional<int>(v);
  }

  // The moves of b (n stones in pits) in the order the search tries them after the TT move:
  // children[0, returned count), each with its board, gain and extra-turn mark.
  int children_in_order(const B& b, int n, SolveChild<B>* children) const {
    Children kids;
    const int opp_stones = n - b.own_stones();
    for (int i = 0; i < b.m(); ++i) {
      if (b.pit(i) == 0) continue;
      leaves_.make_child(b, n, opp_stones, i, kids.child[i]);
      kids.queue.push(kids.child[i].order);
    }
    for (int k = 0; k < kids.queue.size(); ++k) children[k] = kids.child[kids.queue.take(k)];
    return kids.queue.size();
  }

  // The TT the search reads and writes.
  TTView& tt() { return tt_; }

 private:
  // search() past its inline answers: the oracle's other answers, the memo, the TT, the moves.
  int expand(const B& b, int n, int alpha, int beta, std::uint64_t lookup) {
    // Step 5: the oracle and the memo.
    if (n <= leaves_.oracle_max || (ply_ < kOracleEveryNodePlies && leaves_.oracle != nullptr)) {
      if (const std::optional<int> f = leaves_.oracle->future(b.position())) {
        ++oracle_hits_;
        return *f;
      }
    }
    if (n <= leaves_.memo_max) return leaves_.memo->value(b, n, *this);

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
      // Step 6: the TT.
      if (n >= leaves_.tt_min) {
        node.key = lookup != 0 ? lookup : b.key();
        if (int v; probe_tt(node, &v)) return v;
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
      // Step 11: store.
      if (n >= leaves_.tt_min) store_result(node, std::bit_width(nodes_ - nodes_before));
      return node.w.best;
    }
  }

  using Child = SolveChild<B>;
  using Children = SolveChildren<B>;
  static constexpr int kMaxChildren = Children::kMax;

  // One node's search state: the window and the best child so far, the TT's bounds and move.
  struct Node {
    const B& b;
    int n;
    Window w;
    int alpha0;         // the caller's alpha
    std::uint64_t key;  // the TT key when n >= tt_min_stones()
    int lo, hi;         // proven bounds on the future from the TT
    int tt_move;        // the TT's best move, -1 none
  };

  // Narrows the node's bounds by its TT entry; true (with *v) when they settle the window.
  bool probe_tt(Node& node, int* v) {
    SolveEntry e;
    if (!tt_.probe(node.key, e)) return false;
    node.lo = std::max(node.lo, int(e.lower));
    node.hi = std::min(node.hi, int(e.upper));
    node.tt_move = e.move;
    const bool settled = settles(node.lo, node.hi, node.w.alpha, node.w.beta, v);
    tt_cutoffs_ += settled;
    return settled;
  }

  // Searches the node's moves: the TT move first, then the others in order. Returns a value
  // when an enhanced transposition cutoff ends the node (already stored); else node.w.best holds
  // the result (meaningless once halted).
  std::optional<int> search_moves(Node& node) {
    const B& b = node.b;
    const int opp_stones = node.n - b.own_stones();  // make_child()'s order counts from it
    const bool rounds = in_rounds(mover_);
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
    // Step 7: the TT move.
    if (searched_tt_move) {
      Child c;
      leaves_.make_child(b, node.n, opp_stones, node.tt_move, c);
      if (visit(node, c)) return std::nullopt;
    }
    Children kids;
    for (int i = 0; i < b.m(); ++i) {
      if ((rounds || i != node.tt_move) && b.pit(i) != 0) {
        Child& c = kids.child[i];
        leaves_.make_child(b, node.n, opp_stones, i, c);
        kids.queue.push(c.order);
      }
    }
    const auto visit_child = [&](int pit) __attribute__((always_inline)) {
      return visit(node, kids.child[pit]);
    };
    // Step 8: the database children. Children inside the database come first in the order and are
    // exact at the cost of one read: they are visited before the enhanced transposition cutoff
    // reads the other children's TT entries, which a cutoff among them spares.
    int k = 0;
    if (search_in_order(kids.queue, k, visit_child, move_key(kDatabaseChild, 0)))
      return std::nullopt;
    if (k == kids.queue.size()) return std::nullopt;
    // Step 9: the enhanced transposition cutoff.
    if (node.n >= kEtcMinStones) {
      if (const std::optional<int> v = enhanced_cutoff(node, kids, k)) return v;
    }
    // Step 10: the other moves in order.
    if (rounds) {
      defence_rounds(node, kids, k);
    } else if (busy_ == nullptr) {
      search_in_order(kids.queue, k, visit_child);
    } else {
      visit_shared(node, kids, k, searched_tt_move);
    }
    return std::nullopt;
  }

  // The children from the k-th (the TT move first, then in order) in rounds of doubling node
  // budgets (set_defence_rounds), until one cuts the node off or every one is settled.
  void defence_rounds(Node& node, Children& kids, int k) {
    int pending[kMaxChildren], count = 0;
    for (int j = k; j < kids.queue.size(); ++j) pending[count++] = kids.queue.take(j);
    if (int* tt = std::find(pending, pending + count, node.tt_move); tt != pending + count)
      std::rotate(pending, tt, tt + 1);
    visit_in_rounds(pending, count, k, [&](int pit) {
      const Child& c = kids.child[pit];
      return busy_ != nullptr ? visit_marked(node, c) : visit(node, c);
    });
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
      if (node.n - c.gain < leaves_.tt_min) continue;  // c.lookup is no TT key
      SolveEntry e;
      if (!tt_.probe(c.lookup, e)) continue;
      c.lower = e.lower;
      c.upper = e.upper;
      const int v = std::max(node.w.best, c.again ? c.gain + e.lower : c.gain - e.upper);
      if (v >= node.w.beta) {
        ++tt_cutoffs_;
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
          busy_slot(c.lookup).load(std::memory_order_relaxed) == c.lookup) {
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
    std::atomic_ref<std::uint64_t> slot = busy_slot(c.lookup);
    slot.store(c.lookup, std::memory_order_relaxed);
    const bool end = visit(node, c);
    std::uint64_t mine = c.lookup;
    slot.compare_exchange_strong(mine, 0, std::memory_order_relaxed);
    return end;
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

  SolveLeaves<B> leaves_;
  const ExpandTrace* trace_ = nullptr;
  const TTView* move_source_ = nullptr;
  // Children with at least this many stones in pits are marked busy (set_parallel).
  const int busy_min_ = leaves_.tt_min + kBusyAbove;
  std::uint64_t oracle_hits_ = 0;
  std::uint64_t expanded_ = 0;  // nodes whose moves were searched
  std::uint64_t tt_cutoffs_ = 0;
  int mover_ = 0;  // the side to move at the current node: 0 as at the search's root, 1 the other
};

}  // namespace kalah::solve_detail
