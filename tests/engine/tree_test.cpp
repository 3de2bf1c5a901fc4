// The engine search's recorded tree (kalah tree): root value = minimax, every recorded bound true.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "engine/tree.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

// Checks node `id` (reached as position `p` with `depth` plies left) and its subtree.
void check_subtree(Rules rules, const SearchTree& t, int id, const Position& p, int depth,
                   int& checked, int& table_leaves) {
  for (int child : t.nodes[id].children) {
    const TreeNode& n = t.nodes[child];
    ASSERT_EQ(n.player, p.mover);
    ASSERT_GT(p.own_pit(n.pit - 1), 0);
    Position c = p;
    const bool again = play_move(rules, c, n.pit);
    ASSERT_EQ(again, n.extra_turn);
    if (n.bound == TreeBound::kPruned) {
      ASSERT_TRUE(n.children.empty());
      continue;
    }
    const int truth = again ? test::reference_minimax(rules, c, depth - 1)
                            : -test::reference_minimax(rules, c, depth - 1);
    switch (n.bound) {
      case TreeBound::kExact:
        ASSERT_EQ(n.value, truth) << to_string(c);
        break;
      case TreeBound::kLower:
        ASSERT_GE(truth, n.value) << to_string(c);
        ASSERT_GE(n.value, n.beta);
        break;
      case TreeBound::kUpper:
        ASSERT_LE(truth, n.value) << to_string(c);
        ASSERT_LE(n.value, n.alpha);
        break;
      case TreeBound::kPruned:
        break;
    }
    ++checked;
    table_leaves += n.leaf == TreeLeaf::kTable;
    check_subtree(rules, t, child, c, depth - 1, checked, table_leaves);
  }
}

TEST(Tree, RootValueIsMinimaxAndEveryBoundHolds) {
  std::mt19937_64 rng(4242);
  for (Rules rules : test::registered_rules()) {
    int checked = 0, pruned = 0, table_leaves = 0;
    for (int i = 0; i < 40; ++i) {
      const Position p = test::random_position(rules, 3 + int(rng() % 4), 2 + int(rng() % 3),
                                               int(rng() % 10), rng);
      if (is_over(rules, p)) continue;
      const int depth = 1 + int(rng() % 5);
      const SearchTree t = trace_search(rules, p, depth, 1000000);
      ASSERT_EQ(t.value, test::reference_minimax(rules, p, depth)) << to_string(p);
      // The recorded iteration is the one asked for, or an earlier exact one that ended the
      // deepening (its exact value is the minimax value at every greater depth).
      ASSERT_EQ(t.requested_depth, depth);
      ASSERT_LE(t.depth, depth);
      if (t.depth < depth) {
        ASSERT_TRUE(t.exact) << to_string(p);
      }
      ASSERT_EQ(t.nodes.size(), 1 + t.searched - 1 + t.pruned);  // searched counts the root
      check_subtree(rules, t, 0, p, t.depth, checked, table_leaves);
      pruned += int(t.pruned);
      if (t.exact) {
        ASSERT_EQ(t.value, test::reference_minimax(rules, p, 1000)) << to_string(p);
      }
    }
    EXPECT_GT(checked, 500) << rules_name(rules);
    EXPECT_GT(pruned, 50) << rules_name(rules);
    EXPECT_GT(table_leaves, 0) << rules_name(rules);  // the bounds of table cut-offs were checked
  }
}

TEST(Tree, RefusesTreesAboveTheNodeLimit) {
  EXPECT_THROW(trace_search(Rules::kWetherell, start_position(6, 4), 8, 1000), TreeTooLarge);
  const SearchTree t = trace_search(Rules::kWetherell, start_position(6, 4), 2, 1000);
  EXPECT_LE(t.nodes.size(), 1000u);
}

TEST(Tree, TextAndDotNameEveryNode) {
  const SearchTree t = trace_search(Rules::kKalah, start_position(4, 2), 3, 100000);
  const std::string text = tree_to_text(t), dot = tree_to_dot(t);
  int lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 3 + int(t.nodes.size()) - 1);  // 3 header lines, one line per non-root node
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  for (std::size_t id = 0; id < t.nodes.size(); ++id)
    EXPECT_NE(dot.find("  n" + std::to_string(id) + " [label="), std::string::npos) << id;
}

}  // namespace
}  // namespace kalah
