// Traced alpha-beta search and its text / Graphviz renderings (see tree.hpp).
#include "tree.hpp"

#include <algorithm>

#include "ordering.hpp"

namespace kalah {

namespace {

template <class R>
class Tracer {
 public:
  Tracer(SearchTree& tree, std::size_t max_nodes, ExactOracle* oracle)
      : tree_(tree), max_nodes_(max_nodes), oracle_(oracle) {}

  // Value of node `id` (position p) for its side to move, as in the engine's alphabeta.
  int search(int id, const Position& p, int depth, int alpha, int beta) {
    ++tree_.searched;
    if (is_over<R>(p)) {
      tree_.nodes[id].leaf = TreeLeaf::kGameOver;
      return final_margin(p);
    }
    if (oracle_ && id != 0) {  // the root is always expanded, as in the engine
      if (auto v = oracle_->margin(p)) {
        tree_.nodes[id].leaf = TreeLeaf::kOracle;
        return *v;
      }
    }
    if (depth <= 0) {
      tree_.nodes[id].leaf = TreeLeaf::kEvaluation;
      tree_.exact = false;
      return p.kalah_difference();
    }
    Child children[kMaxPits];
    const int n = ordered_children<R>(p, -1, children);
    int best = -kTreeInf;
    for (int i = 0; i < n; ++i) {
      const Child& c = children[i];
      const int child = add(id, c, p.mover, alpha, beta);
      if (alpha >= beta) {  // cut off: the remaining moves are recorded as pruned
        tree_.nodes[child].bound = TreeBound::kPruned;
        ++tree_.pruned;
        continue;
      }
      const int v = c.sign > 0 ? search(child, c.pos, depth - 1, alpha, beta)
                               : -search(child, c.pos, depth - 1, -beta, -alpha);
      TreeNode& node = tree_.nodes[child];
      node.value = v;
      node.bound = v <= alpha  ? TreeBound::kUpper
                   : v >= beta ? TreeBound::kLower
                               : TreeBound::kExact;
      best = std::max(best, v);
      alpha = std::max(alpha, v);
    }
    return best;
  }

 private:
  int add(int parent, const Child& c, Side player, int alpha, int beta) {
    if (tree_.nodes.size() >= max_nodes_)
      throw TreeTooLarge("the tree has more than " + std::to_string(max_nodes_) + " nodes");
    TreeNode node;
    node.parent = parent;
    node.pit = c.pit + 1;
    node.player = player;
    node.alpha = alpha;
    node.beta = beta;
    node.extra_turn = c.sign > 0;
    tree_.nodes.push_back(node);
    const int id = int(tree_.nodes.size()) - 1;
    tree_.nodes[parent].children.push_back(id);
    return id;
  }

  SearchTree& tree_;
  std::size_t max_nodes_;
  ExactOracle* oracle_;
};

std::string bound_text(int v) {
  if (v <= -kTreeInf) return "-inf";
  if (v >= kTreeInf) return "+inf";
  std::string s = v > 0 ? "+" : "";
  s += std::to_string(v);
  return s;
}

std::string move_name(const TreeNode& n) {
  std::string s(1, side_letter(n.player));
  s += std::to_string(n.pit);
  return s;
}

// "= +3", ">= +3", "<= -1" or "pruned", for the player making the move.
std::string value_text(const TreeNode& n) {
  switch (n.bound) {
    case TreeBound::kExact:
      return "= " + bound_text(n.value);
    case TreeBound::kLower:
      return ">= " + bound_text(n.value);
    case TreeBound::kUpper:
      return "<= " + bound_text(n.value);
    case TreeBound::kPruned:
      return "pruned";
  }
  return "?";
}

std::string leaf_text(TreeLeaf leaf) {
  switch (leaf) {
    case TreeLeaf::kInner:
      return "";
    case TreeLeaf::kEvaluation:
      return "evaluation";
    case TreeLeaf::kGameOver:
      return "game over";
    case TreeLeaf::kOracle:
      return "database";
  }
  return "";
}

std::string summary(const SearchTree& t) {
  std::string s = to_string(t.root_position) + ", depth " + std::to_string(t.depth) + ": value " +
                  bound_text(t.value) + " for " + side_letter(t.root_position.mover) +
                  (t.exact ? " (exact game margin)" : " (heuristic, depth-limited)") + "; " +
                  std::to_string(t.searched) +
                  (t.searched == 1 ? " node searched, " : " nodes searched, ") +
                  std::to_string(t.pruned) + (t.pruned == 1 ? " move pruned" : " moves pruned");
  return s;
}

}  // namespace

SearchTree trace_search(Rules rules, const Position& p, int depth, std::size_t max_nodes,
                        ExactOracle* oracle) {
  SearchTree tree;
  tree.root_position = p;
  tree.depth = depth;
  tree.exact = true;
  TreeNode root;
  root.player = p.mover;
  root.alpha = -kTreeInf;
  root.beta = kTreeInf;
  tree.nodes.push_back(root);
  with_rules(rules, [&](auto r) {
    Tracer<decltype(r)> tracer(tree, std::max<std::size_t>(max_nodes, 1), oracle);
    tree.value = tracer.search(0, p, depth, -kTreeInf, kTreeInf);
  });
  tree.nodes[0].value = tree.value;
  return tree;
}

std::string tree_to_text(const SearchTree& t) {
  std::string out = "# " + summary(t) + "\n";
  out +=
      "# each line: a move (side and pit), its value for the player making it, the window "
      "(alpha, beta)\n# it was searched with; '>=' fail-high (later moves are pruned), '<=' "
      "fail-low, '=' exact\n";
  // Depth-first over the recorded children, iteratively (trees may be deep).
  std::vector<std::pair<int, int>> stack;  // (node, indent)
  const auto& root_children = t.nodes[0].children;
  for (auto it = root_children.rbegin(); it != root_children.rend(); ++it)
    stack.push_back({*it, 0});
  while (!stack.empty()) {
    const auto [id, indent] = stack.back();
    stack.pop_back();
    const TreeNode& n = t.nodes[id];
    std::string line(2 * indent, ' ');
    line += move_name(n) + " " + value_text(n);
    if (n.bound != TreeBound::kPruned) {
      line += "  (" + bound_text(n.alpha) + ", " + bound_text(n.beta) + ")";
      if (n.extra_turn) line += "  extra turn";
      if (n.leaf != TreeLeaf::kInner) line += "  " + leaf_text(n.leaf);
    }
    out += line + "\n";
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it)
      stack.push_back({*it, indent + 1});
  }
  return out;
}

std::string tree_to_dot(const SearchTree& t) {
  std::string out = "digraph alphabeta {\n";
  out += "  graph [label=\"" + summary(t) + "\", labelloc=t, fontname=\"Helvetica\"];\n";
  out += "  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n";
  for (std::size_t id = 0; id < t.nodes.size(); ++id) {
    const TreeNode& n = t.nodes[id];
    std::string label, style;
    if (id == 0) {
      label = to_string(t.root_position) + "\\n" + bound_text(t.value) + " for " +
              side_letter(t.root_position.mover);
      style = ", style=bold";
    } else {
      label = move_name(n) + "\\n" + value_text(n);
      if (n.extra_turn) label += "\\nextra turn";
      if (n.leaf != TreeLeaf::kInner) label += "\\n" + leaf_text(n.leaf);
      switch (n.bound) {
        case TreeBound::kExact:
          break;
        case TreeBound::kLower:
          style = ", color=red";
          break;
        case TreeBound::kUpper:
          style = ", color=blue";
          break;
        case TreeBound::kPruned:
          style = ", style=dashed, color=gray, fontcolor=gray";
          break;
      }
    }
    out += "  n" + std::to_string(id) + " [label=\"" + label + "\"" + style + "];\n";
    if (n.parent >= 0) {
      out += "  n" + std::to_string(n.parent) + " -> n" + std::to_string(id);
      if (n.bound == TreeBound::kPruned) out += " [style=dashed, color=gray]";
      out += ";\n";
    }
  }
  out += "}\n";
  return out;
}

}  // namespace kalah
