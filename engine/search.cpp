// Iterative-deepening negamax alpha-beta over margins; see search.hpp for the contract.
#include "search.hpp"

#include <algorithm>
#include <chrono>
#include <random>

#include "ordering.hpp"
#include "tt.hpp"

namespace kalah {

namespace {

struct StopSearch {};

using Clock = std::chrono::steady_clock;

}  // namespace

struct Searcher::Impl {
  explicit Impl(Rules r, const SearchOptions& o) : rules(r), opt(o), tt(o.tt_bytes), rng(o.seed) {}
  virtual ~Impl() = default;
  virtual SearchResult run(const Position& p, const SearchLimits& limits) = 0;

  Rules rules;
  SearchOptions opt;
  TranspositionTable tt;
  std::mt19937_64 rng;
};

namespace {

constexpr int kInf = 1 << 20;

template <class R>
class SearchImpl final : public Searcher::Impl {
 public:
  using Searcher::Impl::Impl;

  SearchResult run(const Position& root, const SearchLimits& limits) override {
    SearchResult res;
    start_ = Clock::now();
    limits_ = limits;
    nodes_ = 0;
    oracle_hits_ = 0;
    stopping_allowed_ = false;
    if (over(root)) {
      res.value = final_margin(root);
      res.exact = true;
      res.seconds = elapsed();
      return res;
    }
    const int max_depth = std::max(1, limits.depth);
    for (int depth = 1; depth <= max_depth; ++depth) {
      stopping_allowed_ = depth > 1;
      SearchResult it;
      try {
        it = search_root(root, depth);
      } catch (const StopSearch&) {
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

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  void count_node() {
    ++nodes_;
    if (!stopping_allowed_ || (nodes_ & 1023) != 0) return;
    if (limits_.nodes && nodes_ >= limits_.nodes) throw StopSearch{};
    if (limits_.seconds > 0 && elapsed() >= limits_.seconds) throw StopSearch{};
  }

  // Root: every move searched with a window that keeps ties with the best value exact.
  SearchResult search_root(const Position& p, int depth) {
    heuristic_leaves_ = 0;
    const TTEntry* e = tt.probe(TranspositionTable::key(p));
    Child children[kMaxPits];
    const int n = ordered_children<R>(p, e ? e->move : -1, children);
    SearchResult res;
    res.depth = depth;
    int best = -kInf;
    for (int i = 0; i < n; ++i) {
      const Child& c = children[i];
      const int floor = best == -kInf ? -kInf : best - 1;
      const int v = c.sign > 0 ? alphabeta(c.pos, depth - 1, floor, kInf)
                               : -alphabeta(c.pos, depth - 1, -kInf, -floor);
      res.root.push_back({c.pit + 1, v, v <= floor});
      best = std::max(best, v);
    }
    res.value = best;
    for (const auto& r : res.root)
      if (!r.upper_bound && r.value == best) res.best_pits.push_back(r.pit);
    std::sort(res.best_pits.begin(), res.best_pits.end());
    res.exact = heuristic_leaves_ == 0;
    TTEntry s;
    s.key = TranspositionTable::key(p);
    s.future = std::int16_t(best - p.kalah_difference());
    s.depth = std::int8_t(std::min(depth, 127));
    s.bound = Bound::kExact;
    s.proven = res.exact;
    s.move = std::int8_t(res.best_pits.front() - 1);
    tt.store(s);
    return res;
  }

  // Negamax value of p for its side to move with `depth` plies left, within (alpha, beta):
  // v <= alpha means value <= v, v >= beta means value >= v, otherwise v is the value.
  int alphabeta(const Position& p, int depth, int alpha, int beta) {
    count_node();
    if (over(p)) return final_margin(p);
    if (opt.oracle) {
      if (auto v = opt.oracle->margin(p)) {
        ++oracle_hits_;
        return *v;
      }
    }
    if (depth <= 0) {
      ++heuristic_leaves_;
      return p.kalah_difference();
    }
    const std::uint64_t key = TranspositionTable::key(p);
    const int kd = p.kalah_difference();
    int hint = -1;
    if (const TTEntry* e = tt.probe(key)) {
      hint = e->move;
      // A heuristic bound holds for this remaining depth only; a proven one for any depth that
      // still reaches all the exact leaves it came from.
      if (e->proven ? e->depth <= depth : e->depth == depth) {
        const int v = e->future + kd;
        if (!e->proven) ++heuristic_leaves_;  // a reused heuristic value taints exactness
        if (e->bound == Bound::kExact) return v;
        if (e->bound == Bound::kLower && v >= beta) return v;
        if (e->bound == Bound::kUpper && v <= alpha) return v;
        if (!e->proven) --heuristic_leaves_;
      }
    }
    const std::uint64_t heuristic_before = heuristic_leaves_;
    const int alpha0 = alpha;
    int best = -kInf;
    int best_pit = -1;
    if (depth == 1 && !opt.oracle) {
      frontier(p, hint, alpha, beta, best, best_pit);
    } else {
      interior(p, depth, hint, alpha, beta, best, best_pit);
    }
    TTEntry s;
    s.key = key;
    s.future = std::int16_t(best - kd);
    s.depth = std::int8_t(std::min(depth, 127));
    s.bound = best <= alpha0 ? Bound::kUpper : best >= beta ? Bound::kLower : Bound::kExact;
    s.proven = heuristic_leaves_ == heuristic_before;
    s.move = std::int8_t(best_pit);
    tt.store(s);
    return best;
  }

  // True when p's game has ended (is_over<R>), from a board seen by its side to move.
  static bool over(const Position& p) {
    if constexpr (R::kRelayCapture) {
      return detail::side_empty(p, 0);
    } else {
      return detail::side_empty(p, 0) || detail::side_empty(p, p.m + 1);
    }
  }

  // Index of the next child to search among n whose order keys are key[i] (pit order, visited
  // ones marked): the hint first, then the highest key, the lowest pit among equal keys. This is
  // ordered_children's order, chosen lazily so that a cut-off skips the rest of the sort.
  static int next_child(const int* key, const int* pit, int n, unsigned& visited, int hint) {
    if (visited == 0 && hint >= 0) {
      for (int i = 0; i < n; ++i)
        if (pit[i] == hint) {
          visited |= 1u << i;
          return i;
        }
    }
    int pick = -1;
    for (int i = 0; i < n; ++i)
      if (!(visited >> i & 1) && (pick < 0 || key[i] > key[pick])) pick = i;
    visited |= 1u << pick;
    return pick;
  }

  // Children searched to depth - 1 >= 1 (or with an oracle) by recursion, in the engine's order.
  // A child's board is flipped to its side to move only when it is searched.
  void interior(const Position& p, int depth, int hint, int& alpha, int beta, int& best,
                int& best_pit) {
    Position child[kMaxPits];
    int key[kMaxPits], pit[kMaxPits];
    bool again[kMaxPits];
    int n = 0;
    for (int i = 0; i < p.m; ++i) {
      if (p.cell[i] == 0) continue;
      child[n] = p;
      again[n] = detail::apply_move<R>(child[n], i, no_trace_);
      key[n] = int(child[n].cell[p.m]) - int(child[n].cell[2 * p.m + 1]);
      pit[n] = i;
      ++n;
    }
    unsigned visited = 0;
    for (int k = 0; k < n; ++k) {
      const int i = next_child(key, pit, n, visited, hint);
      int v;
      if (again[i]) {
        v = alphabeta(child[i], depth - 1, alpha, beta);
      } else {
        child[i].flip();
        v = -alphabeta(child[i], depth - 1, -beta, -alpha);
      }
      if (v > best) {
        best = v;
        best_pit = pit[i];
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
      }
    }
  }

  // Depth 1 without an oracle: every child is a leaf (end of game or static evaluation), valued
  // inline from the mover's side without flipping the board; same nodes and values as recursing.
  void frontier(const Position& p, int hint, int& alpha, int beta, int& best, int& best_pit) {
    const int m = p.m;
    int key[kMaxPits], value[kMaxPits], pit[kMaxPits];
    bool heuristic[kMaxPits];
    int n = 0;
    Position c;
    for (int i = 0; i < m; ++i) {
      if (p.cell[i] == 0) continue;
      c = p;
      detail::apply_move<R>(c, i, no_trace_);
      const int kd = int(c.cell[m]) - int(c.cell[2 * m + 1]);
      // The child's game is over when its side to move has no stones (wetherell: the opponent,
      // as there is no extra turn) or, under kalah rules, when either side has none.
      const bool ended = R::kRelayCapture
                             ? detail::side_empty(c, m + 1)
                             : detail::side_empty(c, 0) || detail::side_empty(c, m + 1);
      key[n] = kd;
      value[n] = ended ? kd + c.own_pit_stones() - c.opp_pit_stones() : kd;
      heuristic[n] = !ended;
      pit[n] = i;
      ++n;
    }
    unsigned visited = 0;
    for (int k = 0; k < n; ++k) {
      const int i = next_child(key, pit, n, visited, hint);
      count_node();
      heuristic_leaves_ += heuristic[i];
      const int v = value[i];
      if (v > best) {
        best = v;
        best_pit = pit[i];
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
      }
    }
  }

  std::vector<int> principal_variation(Position p, int first_pit, int depth) {
    std::vector<int> pv;
    int pit = first_pit;
    for (int ply = 0; ply < std::max(depth, 1) && pit > 0; ++ply) {
      if (is_over<R>(p) || p.own_pit(pit - 1) == 0) break;
      pv.push_back(pit);
      play_move<R>(p, pit - 1);
      const TTEntry* e = tt.probe(TranspositionTable::key(p));
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
  NoTrace no_trace_;
};

}  // namespace

Searcher::Searcher(Rules rules, const SearchOptions& options)
    : impl_(with_rules(rules, [&](auto r) -> std::unique_ptr<Impl> {
        return std::make_unique<SearchImpl<decltype(r)>>(rules, options);
      })) {}
Searcher::~Searcher() = default;
Searcher::Searcher(Searcher&&) noexcept = default;
Searcher& Searcher::operator=(Searcher&&) noexcept = default;

SearchResult Searcher::search(const Position& p, const SearchLimits& limits) {
  return impl_->run(p, limits);
}
void Searcher::clear() {
  impl_->tt.clear();
}
Rules Searcher::rules() const {
  return impl_->rules;
}

}  // namespace kalah
