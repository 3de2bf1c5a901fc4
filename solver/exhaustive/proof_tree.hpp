// A best-first top over one null-window test: the test's first plies kept as a tree searched by
// proof and disproof numbers, the depth-first search at its leaves within node budgets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "solver/exhaustive/search_team.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah::solve_detail {

// Where a best-first top may grow and what its leaves may spend (SolveOptions::best_first_plies).
struct ProofTreeLimits {
  int plies = 0;  // nodes this many moves below the test's root are not expanded
  // A leaf's first search gets this many nodes (each thread), each later one twice its last.
  std::uint64_t budget = 4096;
  // A leaf within `plies` is expanded only once a search of this many times its first budget
  // failed to settle it: until then it is searched again with twice its last budget.
  std::uint64_t expand_after = 16;
  // The same for the test's root (0: expand_after): a test a depth-first search of this many
  // times `budget` settles never grows a tree.
  std::uint64_t root_expand_after = 0;
  // 0: every leaf's first budget is `budget`. Else it is at least the nodes the test has spent so
  // far (by the tree's search: the team's main one when every thread searches) over budget_share:
  // the longer a test runs, the deeper each leaf's search before the tree grows there.
  std::uint64_t budget_share = 0;
  // Beyond this many nodes (80 bytes each on the 6-pit boards: 20 MiB) the test's root is searched
  // depth-first to the end.
  std::size_t max_nodes = std::size_t(1) << 18;
};

// The test "future of root >= t" as a tree whose nodes each test their own future against the
// threshold that decides the root's: a node is proven when its proven bounds [lo, hi] reach its
// threshold, disproven when they stay below it. Its proof number estimates the leaves whose proof
// would prove it, its disproof number those whose disproof would disprove it: a leaf counts 1,
// plus 3 for each move the search's order tries before its own (the order is usually right); the
// leaf reached by following, from the root, the child that sets each node's proof number (the
// most-proving leaf) is settled next: searched again with twice its last budget, or, once a search
// of expand_after times the first budget failed to settle it and it lies within the tree's depth,
// expanded, its children searched in the search's order within the first budget until one settles
// it (ProofTreeLimits says what the first budget is). The depth-first search at the leaves stores
// what it proves in the TT, so a leaf searched again or a child of an expanded one starts from what
// the earlier searches finished. Kalah's moves never return to a position, so the tree has no
// cycles; a position reached twice is kept twice (the TT shares what its leaves proved).
template <class B>
class ProofTree {
 public:
  // A tree whose leaves are searched by every thread of `team` (each within its own budget), or,
  // with `alone`, by that one search of the team (a test one thread runs by itself).
  ProofTree(SearchTeam<B>& team, const ProofTreeLimits& limits, Search<B>* alone = nullptr)
      : team_(team), alone_(alone), limits_(limits) {}

  // The fail-soft null-window test of `root` (n stones in pits) against beta, as
  // SearchTeam::test_alone answers it; nullopt when the search stopped first.
  std::optional<int> test(const B& root, int n, int beta) {
    nodes_.clear();
    start_nodes_ = search().nodes();
    nodes_.push_back(Node{root, n, beta});
    if (!evaluate(0)) return std::nullopt;
    while (!settled(nodes_[0])) {
      if (nodes_.size() + B::kMaxM > limits_.max_nodes) {  // the rest depth-first
        count_tree();
        return alone_ != nullptr ? SearchTeam<B>::test_alone(*alone_, root, n, beta)
                                 : team_.test_depth_first(root, n, beta);
      }
      std::size_t x = 0;
      while (nodes_[x].kids != 0) x = most_proving_child(x);
      if (expandable(nodes_[x])) {
        if (!expand(x)) return std::nullopt;
      } else if (!evaluate(x)) {
        return std::nullopt;
      }
      update_ancestors(x);
    }
    count_tree();
    store_bounds();
    const Node& r = nodes_[0];
    return r.lo >= beta ? r.lo : r.hi;
  }

  // The search that alone searches the tree's leaves; null when every thread of the team does.
  const Search<B>* alone() const { return alone_; }

  // The most nodes any test's tree held, and their bytes.
  std::size_t peak_nodes() const { return peak_; }
  std::size_t peak_bytes() const { return peak_ * sizeof(Node); }
  // What the tree held over every test that ended.
  const TreeCounts& counts() const { return counts_; }

 private:
  static constexpr std::uint32_t kInfinity = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t kRankWeight = 3;
  static constexpr std::uint64_t kMaxBudget = std::uint64_t(1) << 62;
  // The work an interior node's TT entry is stored with (the bit width of its subtree's nodes,
  // as the search stores): above most entries, which keeps it against replacement.
  static constexpr int kTreeWork = 20;

  struct Node {
    B b;
    int n;
    int t;   // this node's test: future >= t
    int lo;  // proven: lo <= future <= hi
    int hi;
    std::uint32_t pn = 1, dn = 1;
    std::uint32_t first = 0;  // children: nodes_[first, first + kids)
    std::uint32_t parent = 0;
    std::uint8_t kids = 0;
    std::uint8_t depth = 0;
    std::uint8_t mover = 0;    // 0: the test root's side to move, 1: the other
    bool again = false;        // the move from its parent gave an extra turn
    std::int8_t pit = -1;      // the move from its parent
    std::uint8_t rank = 0;     // its place in the search's order of its parent's moves
    int gain = 0;              // the stones that move banked
    std::uint64_t budget = 0;  // the nodes its next search may spend

    Node(const B& board, int stones, int threshold)
        : b(board), n(stones), t(threshold), lo(Search<B>::least_future(stones)), hi(stones) {}
  };

  static bool settled(const Node& x) { return x.lo >= x.t || x.hi < x.t; }

  // What child c contributes to its parent's proof number (phi) and disproof number (delta): its
  // own numbers, swapped when the move hands the turn over (the parent's proof is then c's
  // disproof).
  static std::uint32_t phi(const Node& c) { return c.again ? c.pn : c.dn; }
  static std::uint32_t delta(const Node& c) { return c.again ? c.dn : c.pn; }

  // Whether leaf x is expanded rather than searched again: its last search (half its next
  // budget) spent expand_after first budgets (the root: root_expand_after budgets), and it lies
  // within the tree's depth.
  bool expandable(const Node& x) const {
    const std::uint64_t after = x.depth == 0 && limits_.root_expand_after != 0
                                    ? limits_.root_expand_after
                                    : limits_.expand_after;
    const std::uint64_t first = x.depth == 0 ? limits_.budget : first_budget();
    int over;
    return x.budget / 2 >= first * after && x.depth < limits_.plies && !game_over(x.b, x.n, &over);
  }

  // A leaf's first budget now (ProofTreeLimits::budget_share).
  std::uint64_t first_budget() const {
    if (limits_.budget_share == 0) return limits_.budget;
    return std::max(limits_.budget, (search().nodes() - start_nodes_) / limits_.budget_share);
  }

  // Searches leaf x depth-first within its budget (doubled for the next time); false when the
  // search stopped (the deadline, a cancel).
  bool evaluate(std::size_t x) {
    Node& node = nodes_[x];
    if (int over; game_over(node.b, node.n, &over)) {
      node.lo = node.hi = over;
    } else {
      if (node.budget == 0) node.budget = first_budget();
      bool stopped;
      const std::optional<int> r = search_within(node, &stopped);
      if (stopped) return false;
      node.budget = std::min(2 * node.budget, kMaxBudget);
      if (r) {
        if (*r >= node.t)
          node.lo = std::max(node.lo, *r);
        else
          node.hi = std::min(node.hi, *r);
      }
    }
    set_leaf_numbers(node);
    return true;
  }

  // A leaf's numbers: 0 and infinity once settled, else 1 plus kRankWeight for each move tried
  // before its own, on the number its parent's proof number takes.
  static void set_leaf_numbers(Node& x) {
    if (x.lo >= x.t) {
      x.pn = 0;
      x.dn = kInfinity;
    } else if (x.hi < x.t) {
      x.pn = kInfinity;
      x.dn = 0;
    } else {
      x.pn = x.dn = 1;
      (x.again ? x.pn : x.dn) += kRankWeight * x.rank;
    }
  }

  // Leaf x's null-window test within its budget, on the tree's threads.
  std::optional<int> search_within(const Node& x, bool* stopped) {
    return alone_ != nullptr
               ? SearchTeam<B>::search_within_alone(*alone_, x.b, x.n, x.t - 1, x.t, x.depth,
                                                    x.mover, x.budget, stopped)
               : team_.search_within(x.b, x.n, x.t - 1, x.t, x.depth, x.mover, x.budget, stopped);
  }

  // The search whose order and TT the tree uses.
  Search<B>& search() { return alone_ != nullptr ? *alone_ : team_.main(); }
  const Search<B>& search() const { return alone_ != nullptr ? *alone_ : team_.main(); }

  // Gives leaf x its children, each searched within the first budget in the search's order until
  // one settles x; false when the search stopped.
  bool expand(std::size_t x) {
    SolveChild<B> children[B::kMaxM];
    const int count = search().children_in_order(nodes_[x].b, nodes_[x].n, children);
    const auto first = std::uint32_t(nodes_.size());
    for (int k = 0; k < count; ++k) {
      const SolveChild<B>& c = children[k];
      const Node& parent = nodes_[x];
      Node child(c.b, parent.n - c.gain, c.again ? parent.t - c.gain : c.gain - parent.t + 1);
      child.parent = std::uint32_t(x);
      child.depth = std::uint8_t(parent.depth + 1);
      child.mover = std::uint8_t(parent.mover ^ int(!c.again));
      child.again = c.again;
      child.pit = c.pit;
      child.rank = std::uint8_t(k);
      child.gain = c.gain;
      set_leaf_numbers(child);
      nodes_.push_back(child);
    }
    nodes_[x].first = first;
    nodes_[x].kids = std::uint8_t(count);
    for (int k = 0; k < count; ++k) {
      if (!evaluate(first + k)) return false;
      set_interior(x);
      if (settled(nodes_[x])) break;
    }
    return true;
  }

  // The parent's view of child c's bounds.
  static std::pair<int, int> seen_from_parent(const Node& c) {
    return c.again ? std::pair(c.gain + c.lo, c.gain + c.hi)
                   : std::pair(c.gain - c.hi, c.gain - c.lo);
  }

  // Interior node x's bounds and numbers from its children's.
  void set_interior(std::size_t x) {
    Node& node = nodes_[x];
    int lo = Search<B>::least_future(node.n), hi = lo;
    std::uint32_t pn = kInfinity;
    std::uint64_t dn = 0;
    for (std::uint32_t k = node.first; k < node.first + node.kids; ++k) {
      const Node& c = nodes_[k];
      const auto [clo, chi] = seen_from_parent(c);
      lo = std::max(lo, clo);
      hi = std::max(hi, chi);
      pn = std::min(pn, phi(c));
      dn += delta(c);
    }
    node.lo = std::max(node.lo, lo);
    node.hi = std::min(node.hi, hi);
    if (settled(node)) {
      set_leaf_numbers(node);
    } else {
      node.pn = pn;
      node.dn = std::uint32_t(std::min<std::uint64_t>(dn, kInfinity - 1));
    }
  }

  std::size_t most_proving_child(std::size_t x) const {
    const Node& node = nodes_[x];
    std::size_t best = node.first;
    for (std::uint32_t k = node.first + 1; k < node.first + node.kids; ++k)
      if (phi(nodes_[k]) < phi(nodes_[best])) best = k;
    return best;
  }

  void update_ancestors(std::size_t x) {
    if (nodes_[x].kids != 0) set_interior(x);
    while (x != 0) {
      x = nodes_[x].parent;
      set_interior(x);
    }
  }

  // Adds this test's tree to peak_ and counts_.
  void count_tree() {
    peak_ = std::max(peak_, nodes_.size());
    std::vector<std::uint64_t> all, expanded;
    for (const Node& x : nodes_) {
      all.push_back(x.b.key());
      if (x.kids != 0) expanded.push_back(x.b.key());
    }
    const auto repeats = [](std::vector<std::uint64_t>& keys) {
      std::sort(keys.begin(), keys.end());
      return std::uint64_t(keys.end() - std::unique(keys.begin(), keys.end()));
    };
    counts_.nodes += all.size();
    counts_.expanded += expanded.size();
    counts_.repeated += repeats(all);
    counts_.repeated_expanded += repeats(expanded);
  }

  // The bounds the tree proved of its interior nodes, into the TT for the tests after this one.
  void store_bounds() {
    for (std::size_t x = 0; x < nodes_.size(); ++x) {
      const Node& node = nodes_[x];
      if (node.kids == 0 || node.n < search().tt_min_stones()) continue;
      int move = -1, best = -kNoBound;
      for (std::uint32_t k = node.first; k < node.first + node.kids; ++k) {
        const auto [clo, chi] = seen_from_parent(nodes_[k]);
        const int v = node.lo >= node.t ? clo : chi;
        if (v > best) {
          best = v;
          move = nodes_[k].pit;
        }
      }
      search().tt().store(node.b.key(), node.lo, node.hi, move, kTreeWork);
    }
  }

  SearchTeam<B>& team_;
  Search<B>* alone_;  // null: every thread of team_
  ProofTreeLimits limits_;
  std::vector<Node> nodes_;
  std::uint64_t start_nodes_ = 0;  // search().nodes() when the test began
  std::size_t peak_ = 0;
  TreeCounts counts_;
};

}  // namespace kalah::solve_detail
