// The engine's search as a template over the rule policy; search.cpp instantiates the registered
// rule sets, and a caller with a policy of its own includes this header.
#pragma once

#include <algorithm>
#include <chrono>
#include <new>
#include <random>
#include <type_traits>

#include "engine/node_loop.hpp"
#include "engine/ordering.hpp"
#include "engine/register_board.hpp"
#include "engine/search.hpp"
#include "engine/search_trace.hpp"
#include "engine/stopwatch.hpp"
#include "engine/tt.hpp"
#include "engine/wide_board.hpp"

namespace kalah {

namespace search_detail {

using Clock = std::chrono::steady_clock;

}  // namespace search_detail

struct Searcher::Impl {
  explicit Impl(Rules r, const SearchOptions& o) : rules(r), opt(o), tt(o.tt_bytes), rng(o.seed) {}
  virtual ~Impl() = default;
  virtual SearchResult run(const Position& p, const SearchLimits& limits) = 0;

  Rules rules;
  SearchOptions opt;
  TranspositionTable tt;
  std::mt19937_64 rng;
};

namespace search_detail {

constexpr int kInf = 1 << 20;

// The search for rule policy R, reporting each step to Trace (search_trace.hpp).
template <class R, SearchTrace Trace = NoSearchTrace>
class SearchImpl final : public Searcher::Impl {
 public:
  SearchImpl(Rules r, const SearchOptions& o, Trace trace = {})
      : Searcher::Impl(r, o), trace_(trace) {}

  SearchResult run(const Position& root, const SearchLimits& limits) override {
    // Register boards serve boards of up to 7 pits and 255 stones (one compiled search per size);
    // an oracle needs Positions at every node.
    if (!opt.oracle && root.total_stones() <= RegisterBoard<1>::kMaxStones) {
      SearchResult res;
      if (with_pits(
              root.m, [&](auto m) { res = run_on(RegisterBoard<m()>(root), limits); },
              PitsOneTo<7>{}))
        return res;
    }
    return run_on(WideBoard(root), limits);
  }

 private:
  template <class B>
  SearchResult run_on(const B& root, const SearchLimits& limits) {
    SearchResult res;
    start_ = Clock::now();
    limits_ = limits;
    nodes_ = 0;
    oracle_hits_ = 0;
    stopping_allowed_ = false;
    stopped_ = false;
    if (is_over<R>(root)) {
      res.value = root.final_margin();
      res.exact = true;
      res.seconds = elapsed();
      return res;
    }
    const int max_depth = std::max(1, limits.depth);
    for (int depth = 1; depth <= max_depth; ++depth) {
      stopping_allowed_ = depth > 1;
      if (stopping_allowed_ && limits.cancel && limits.cancel->load(std::memory_order_relaxed)) {
        res.budget_ran_out = true;
        break;
      }
      SearchResult it = search_root(root, depth);
      if (stopped_) {  // the iteration is unfinished: the last complete one stands
        res.budget_ran_out = true;
        break;
      }
      res = std::move(it);
      if (res.exact) break;  // deeper iterations cannot change an exact value
    }
    res.nodes = nodes_;
    res.oracle_hits = oracle_hits_;
    res.seconds = elapsed();
    if (!res.best_pits.empty()) {
      if (opt.randomize && res.best_pits.size() > 1) {
        std::uniform_int_distribution<std::size_t> pick(0, res.best_pits.size() - 1);
        res.pit = res.best_pits[pick(rng)];
      } else {
        res.pit = res.best_pits.front();
      }
    }
    res.pv = principal_variation(root, res.pit, res.depth);
    return res;
  }

  double elapsed() const { return seconds_since(start_); }

  // Counts a node and, every 1024 nodes of an iteration past the first, sets stopped_ when the
  // budget has run out or the search is cancelled: from then on every alphabeta returns at its
  // entry and nothing is stored; the values of the unfinished iteration are meaningless and it is
  // discarded.
  void count_node() {
    ++nodes_;
    if (!stopping_allowed_ || (nodes_ & 1023) != 0) return;
    if (limits_.nodes && nodes_ >= limits_.nodes) stopped_ = true;
    if (limits_.seconds > 0 && elapsed() >= limits_.seconds) stopped_ = true;
    if (limits_.cancel && limits_.cancel->load(std::memory_order_relaxed)) stopped_ = true;
  }

  // The moves of b in the engine's order (`queue`, the hint first) with their children (flipped
  // to the child's side to move when the turn passes), indexed by pit.
  template <class B>
  union Slot {  // a board left unconstructed until generate() copies one in
    Slot() {}
    B b;
  };
  template <class B>
  struct Moves {
    MoveQueue<kMaxPits> queue;
    Slot<B> slot[kMaxPits];
    const B& child(int pit) const { return slot[pit].b; }
    std::uint64_t hash[kMaxPits];  // the children's TT keys, their slots already prefetched
    bool again[kMaxPits];
  };
  template <class B>
  void generate(const B& b, int hint, Moves<B>& mv) const {
    for (int i = 0; i < b.m(); ++i) {
      if (b.cell(i) == 0) continue;
      B& c = *new (&mv.slot[i].b) B(b);
      mv.again[i] = R::apply(c, i);
      mv.queue.push(engine_key(c.kalah_difference(), i, hint));
      if (!mv.again[i]) c.flip();
      mv.hash[i] = c.key();
      tt.prefetch(mv.hash[i]);
    }
  }

  // The value of move `pit` of mv for the mover, searched to `depth` plies within (alpha, beta).
  template <class B>
  int search_move(const Moves<B>& mv, int pit, int depth, int alpha, int beta) {
    trace_.enter(pit, alpha, beta, mv.again[pit]);
    const int v = mv.again[pit] ? alphabeta(mv.child(pit), mv.hash[pit], depth, alpha, beta)
                                : -alphabeta(mv.child(pit), mv.hash[pit], depth, -beta, -alpha);
    trace_.result(v);
    return v;
  }

  // Root: every move searched with a window that keeps ties with the best value exact.
  template <class B>
  SearchResult search_root(const B& p, int depth) {
    heuristic_leaves_ = 0;
    const TTEntry* e = tt.probe(p.key());
    const int hint = e ? e->move : -1;
    trace_.iteration(depth);
    trace_.expand(hint);
    Moves<B> mv;
    generate(p, hint, mv);
    SearchResult res;
    res.depth = depth;
    int best = -kInf;
    for (int k = 0; k < mv.queue.size(); ++k) {
      const int pit = mv.queue.take(k);
      const int floor = best == -kInf ? -kInf : best - 1;
      const int v = search_move(mv, pit, depth - 1, floor, kInf);
      if (stopped_) return res;
      res.root.push_back({pit + 1, v, v <= floor});
      best = std::max(best, v);
    }
    res.value = best;
    for (const auto& r : res.root)
      if (!r.upper_bound && r.value == best) res.best_pits.push_back(r.pit);
    std::sort(res.best_pits.begin(), res.best_pits.end());
    res.exact = heuristic_leaves_ == 0;
    TTEntry s;
    s.key = p.key();
    s.future = std::int16_t(best - p.kalah_difference());
    s.depth = std::int8_t(std::min(depth, 127));
    s.bound = Bound::kExact;
    s.proven = res.exact;
    s.move = std::int8_t(res.best_pits.front() - 1);
    tt.store(s);
    return res;
  }

  // Negamax value of p (TT key `key`) for its side to move with `depth` plies left, within
  // (alpha, beta): v <= alpha means value <= v, v >= beta means value >= v, otherwise v is the
  // value.
  template <class B>
  int alphabeta(const B& p, std::uint64_t key, int depth, int alpha, int beta) {
    count_node();
    if (stopped_) return 0;
    if (is_over<R>(p)) {
      trace_.leaf(TreeLeaf::kGameOver);
      return p.final_margin();
    }
    if constexpr (std::is_same_v<B, WideBoard>) {  // run() never pairs an oracle with bytes
      if (opt.oracle) {
        if (auto v = opt.oracle->margin(p.position())) {
          ++oracle_hits_;
          trace_.leaf(TreeLeaf::kOracle);
          return *v;
        }
      }
    }
    if (depth <= 0) {
      ++heuristic_leaves_;
      trace_.leaf(TreeLeaf::kEvaluation);
      return p.kalah_difference();
    }
    const int kd = p.kalah_difference();
    int hint = -1;
    if (const TTEntry* e = tt.probe(key)) {
      hint = e->move;
      // A heuristic bound holds for this remaining depth only; a proven one for any depth that
      // still reaches all the exact leaves it came from.
      if (e->proven ? e->depth <= depth : e->depth == depth) {
        const int v = e->future + kd;
        if (!e->proven) ++heuristic_leaves_;  // a reused heuristic value taints exactness
        if (e->bound == Bound::kExact || (e->bound == Bound::kLower && v >= beta) ||
            (e->bound == Bound::kUpper && v <= alpha)) {
          trace_.leaf(TreeLeaf::kTable);
          return v;
        }
        if (!e->proven) --heuristic_leaves_;
      }
    }
    const std::uint64_t heuristic_before = heuristic_leaves_;
    Window w{.alpha = alpha, .beta = beta, .best = -kInf};
    trace_.expand(hint);
    if (depth == 1 && !opt.oracle) {
      frontier(p, hint, w);
    } else {
      interior(p, depth, hint, w);
    }
    if (stopped_) return 0;
    TTEntry s;
    s.key = key;
    s.future = std::int16_t(w.best - kd);
    s.depth = std::int8_t(std::min(depth, 127));
    s.bound = w.best <= alpha ? Bound::kUpper : w.best >= beta ? Bound::kLower : Bound::kExact;
    s.proven = heuristic_leaves_ == heuristic_before;
    s.move = std::int8_t(w.best_pit);
    tt.store(s);
    return w.best;
  }

  // Children searched to depth - 1 >= 1 (or with an oracle) by recursion, in the engine's order.
  template <class B>
  void interior(const B& p, int depth, int hint, Window& w) {
    Moves<B> mv;
    generate(p, hint, mv);
    int k = 0;
    const bool cut = search_in_order(mv.queue, k, [&](int pit) {
      const int v = search_move(mv, pit, depth - 1, w.alpha, w.beta);
      return stopped_ || w.raise(v, pit);
    });
    if (cut && !stopped_) trace_pruned(mv.queue, mv.again, k);
  }

  // Depth 1 without an oracle: every child is a leaf (end of game or static evaluation), valued
  // inline from the mover's side without flipping the board; same nodes and values as recursing.
  template <class B>
  void frontier(const B& p, int hint, Window& w) {
    MoveQueue<kMaxPits> queue;
    int value[kMaxPits];
    bool heuristic[kMaxPits], again_for_trace[kMaxPits];
    for (int i = 0; i < p.m(); ++i) {
      if (p.cell(i) == 0) continue;
      B c = p;
      const bool again = R::apply(c, i);
      const int kd = c.kalah_difference();
      const bool ended = is_over_after<R>(c, again);
      queue.push(engine_key(kd, i, hint));
      value[i] = ended ? c.final_margin() : kd;
      heuristic[i] = !ended;
      if constexpr (Trace::kEnabled) again_for_trace[i] = again;
    }
    int k = 0;
    const bool cut = search_in_order(queue, k, [&](int pit) {
      count_node();
      heuristic_leaves_ += heuristic[pit];
      if constexpr (Trace::kEnabled) {
        trace_.enter(pit, w.alpha, w.beta, again_for_trace[pit]);
        trace_.leaf(heuristic[pit] ? TreeLeaf::kEvaluation : TreeLeaf::kGameOver);
        trace_.result(value[pit]);
      }
      return w.raise(value[pit], pit);
    });
    if (cut) trace_pruned(queue, again_for_trace, k);
  }

  // Reports the moves a cut-off left unsearched, the first `taken` of the queue having been taken.
  void trace_pruned(MoveQueue<kMaxPits>& queue, const bool* again, int taken) {
    if constexpr (Trace::kEnabled) {
      for (int k = taken; k < queue.size(); ++k) {
        const int pit = queue.take(k);
        trace_.pruned(pit, again[pit]);
      }
    }
  }

  template <class B>
  std::vector<int> principal_variation(B p, int first_pit, int depth) {
    std::vector<int> pv;
    int pit = first_pit;
    for (int ply = 0; ply < std::max(depth, 1) && pit > 0; ++ply) {
      if (is_over<R>(p) || p.cell(pit - 1) == 0) break;
      pv.push_back(pit);
      if (!R::apply(p, pit - 1)) p.flip();
      const TTEntry* e = tt.probe(p.key());
      pit = e && e->move >= 0 ? e->move + 1 : 0;
    }
    return pv;
  }

  SearchLimits limits_;
  Clock::time_point start_;
  std::uint64_t nodes_ = 0;
  std::uint64_t oracle_hits_ = 0;
  std::uint64_t heuristic_leaves_ = 0;
  bool stopping_allowed_ = false;
  bool stopped_ = false;  // the budget ran out: the iteration under way is abandoned
  [[no_unique_address]] Trace trace_;
};

}  // namespace search_detail

// Searches p as Searcher::search does on a new searcher for R (a fresh transposition table),
// reporting each step to `trace`.
template <class R, SearchTrace Trace>
SearchResult traced_search(const Position& p, const SearchLimits& limits,
                           const SearchOptions& options, Trace trace) {
  search_detail::SearchImpl<R, Trace> impl(rules_id<R>, options, trace);
  return impl.run(p, limits);
}

template <class R>
Searcher Searcher::for_rules(const SearchOptions& options) {
  return Searcher(std::make_unique<search_detail::SearchImpl<R>>(rules_id<R>, options));
}

}  // namespace kalah
