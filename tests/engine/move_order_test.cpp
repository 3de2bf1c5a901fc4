// The engine's move order: the real search visits every node's moves in ordered_children's order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/ordering.hpp"
#include "engine/search_impl.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

using Move = std::pair<int, bool>;  // 0-based pit, extra turn

// Every node the search expands, through its trace hooks: the pits from the root to it, its hint
// and its moves in the order the search took them (searched, then pruned by a cut-off).
struct OrderRecorder {
  struct Node {
    std::vector<int> path;
    int hint;
    std::vector<Move> order;
    int searched = 0;
    int plies_left = 0;
  };
  std::vector<Node> nodes;
  std::vector<int> path;  // pits from the root to the node being searched
  std::vector<int> open;  // the expanded nodes on the path, indices into nodes
  int depth = 0;          // of the iteration under way

  void iteration(int d) {
    depth = d;
    path.clear();
    open.clear();
  }
  void expand(int hint) {
    nodes.push_back({path, hint, {}, 0, depth - int(path.size())});
    open.push_back(int(nodes.size()) - 1);
  }
  void enter(int pit, int, int, bool extra_turn) {
    nodes[open.back()].order.push_back({pit, extra_turn});
    ++nodes[open.back()].searched;
    path.push_back(pit);
  }
  void leaf(TreeLeaf) {}
  void result(int) {
    if (nodes[open.back()].path.size() == path.size()) open.pop_back();  // the child's own node
    path.pop_back();
  }
  void pruned(int pit, bool extra_turn) { nodes[open.back()].order.push_back({pit, extra_turn}); }
};

// Answers nothing: the search then runs on WideBoard and recurses at depth 1 instead of valuing
// the frontier inline.
class NoAnswers : public ExactOracle {
 public:
  std::optional<int> future(const Position&) override { return std::nullopt; }
};

template <class R>
std::vector<Move> reference_order(const Position& p, int hint) {
  Child children[kMaxPits];
  const int n = ordered_children<R>(p, hint, children);
  std::vector<Move> order;
  for (int i = 0; i < n; ++i) order.push_back({children[i].pit, children[i].sign > 0});
  return order;
}

struct Observed {
  int roots = 0, inner = 0;  // nodes compared
  int hinted = 0;            // nodes whose hint put first a move the order alone would not
  int hinted_frontier = 0;   // those with one ply left (the engine values their moves inline)
  int unhinted = 0;          // inner nodes searched without a hint
  int cut = 0;               // nodes with moves pruned
};

// Searches `root` to `depth`, then again to `again` plies with the table the first search left
// (as kalah play keeps it between moves: the table's moves then lead at nodes of every depth), and
// compares every node either search expanded with ordered_children.
template <class R>
void check_search(const Position& root, int depth, int again, ExactOracle* oracle, Observed& seen) {
  OrderRecorder rec;
  SearchOptions options;
  options.tt_bytes = 1 << 20;
  options.oracle = oracle;
  search_detail::SearchImpl<R, SearchTraceTo<OrderRecorder>> search(rules_id<R>, options, {&rec});
  SearchLimits limits;
  limits.depth = depth;
  search.run(root, limits);
  limits.depth = again;
  search.run(root, limits);
  for (const OrderRecorder::Node& n : rec.nodes) {
    Position p = root;
    for (int pit : n.path) play_move<R>(p, pit);
    const std::vector<Move> want = reference_order<R>(p, n.hint);
    ASSERT_EQ(n.order, want) << to_string(root) << " depth " << depth << " then " << again
                             << ", node " << to_string(p) << " at ply " << n.path.size()
                             << ", hint " << n.hint;
    (n.path.empty() ? seen.roots : seen.inner) += 1;
    if (n.hint >= 0 && reference_order<R>(p, -1).front().first != n.hint &&
        want.front().first == n.hint) {
      ++seen.hinted;
      seen.hinted_frontier += n.plies_left == 1;
    }
    if (n.hint < 0 && !n.path.empty()) ++seen.unhinted;
    if (n.searched < int(n.order.size())) ++seen.cut;
  }
}

TEST(MoveOrder, SearchVisitsChildrenInOrderedChildrensOrder) {
  std::mt19937_64 rng(2828);
  NoAnswers no_answers;
  for (Rules rules : test::registered_rules()) {
    // Register boards with the frontier valued inline, and WideBoard recursing at depth 1.
    for (ExactOracle* oracle :
         {static_cast<ExactOracle*>(nullptr), static_cast<ExactOracle*>(&no_answers)}) {
      Observed seen;
      for (int i = 0; i < 60; ++i) {
        const Position p = test::random_position(rules, 3 + int(rng() % 4), 2 + int(rng() % 4),
                                                 int(rng() % 12), rng);
        if (is_over(rules, p)) continue;
        const int depth = 1 + int(rng() % 6), again = 1 + int(rng() % depth);
        with_rules(rules,
                   [&](auto r) { check_search<decltype(r)>(p, depth, again, oracle, seen); });
        if (HasFatalFailure()) return;
      }
      const std::string what = std::string(rules_name(rules)) + (oracle ? " (wide board)" : "");
      EXPECT_GT(seen.roots, 100) << what;  // every iteration's root
      EXPECT_GT(seen.inner, 1000) << what;
      EXPECT_GT(seen.hinted, 50) << what;
      EXPECT_GT(seen.hinted_frontier, 10) << what;
      EXPECT_GT(seen.unhinted, 500) << what;
      EXPECT_GT(seen.cut, 500) << what;
    }
  }
}

// ordered_children is the documented order: the hint first, then the mover's kalah difference
// after the move, higher first, then the lower pit first.
TEST(MoveOrder, OrderedChildrenIsHintThenKeyThenPit) {
  std::mt19937_64 rng(77);
  for (Rules rules : test::registered_rules()) {
    for (int i = 0; i < 300; ++i) {
      const Position p = test::random_position(rules, 1 + int(rng() % 8), 1 + int(rng() % 6),
                                               int(rng() % 20), rng);
      if (is_over(rules, p)) continue;
      for (int hint = -1; hint < p.m; ++hint) {
        std::vector<std::pair<int, int>> want;  // (key, pit)
        for (int pit = 0; pit < p.m; ++pit) {
          if (p.own_pit(pit) == 0) continue;
          Position c = p;
          const bool again = play_move(rules, c, pit + 1);
          want.push_back({again ? c.kalah_difference() : -c.kalah_difference(), pit});
        }
        const auto first = [&](const std::pair<int, int>& m) {
          return std::pair(m.second == hint, m.first);  // the hint, then the higher key
        };
        std::stable_sort(want.begin(), want.end(),
                         [&](const auto& a, const auto& b) { return first(a) > first(b); });
        Child children[kMaxPits];
        const int n = with_rules(
            rules, [&](auto r) { return ordered_children<decltype(r)>(p, hint, children); });
        ASSERT_EQ(n, int(want.size())) << to_string(p);
        for (int k = 0; k < n; ++k) {
          ASSERT_EQ(children[k].pit, want[k].second) << to_string(p) << " hint " << hint;
          ASSERT_EQ(children[k].order_key, want[k].first) << to_string(p) << " hint " << hint;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kalah
