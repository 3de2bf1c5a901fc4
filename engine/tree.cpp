// The engine search's last iteration recorded as a tree, and its text / Graphviz renderings.
#include "engine/tree.hpp"

#include <algorithm>

#include "engine/search_impl.hpp"

namespace kalah {

namespace {

// Records the search's last iteration as a SearchTree (the trace policy of search_trace.hpp).
class TreeRecorder {
 public:
  static constexpr bool kEnabled = true;

  TreeRecorder(SearchTree& tree, std::size_t max_nodes) : tree_(tree), max_nodes_(max_nodes) {}

  void iteration(int depth) {
    tree_.nodes.resize(1);
    tree_.nodes[0].children.clear();
    tree_.depth = depth;
    tree_.searched = 1;
    tree_.pruned = 0;
    path_.assign(1, 0);
  }
  void expand(int hint) { hint_ = hint; }
  void enter(int pit, int alpha, int beta, bool extra_turn) {
    const int parent = path_.back();
    const bool first = tree_.nodes[parent].children.empty();
    const int id = add(parent, pit, extra_turn);
    TreeNode& n = tree_.nodes[id];
    n.alpha = alpha;
    n.beta = beta;
    n.table_move = first && pit == hint_;
    ++tree_.searched;
    path_.push_back(id);
  }
  void leaf(TreeLeaf kind) { tree_.nodes[path_.back()].leaf = kind; }
  void result(int value) {
    TreeNode& n = tree_.nodes[path_.back()];
    n.value = value;
    n.bound = value <= n.alpha  ? TreeBound::kUpper
              : value >= n.beta ? TreeBound::kLower
                                : TreeBound::kExact;
    path_.pop_back();
  }
  void pruned(int pit, bool extra_turn) {
    tree_.nodes[add(path_.back(), pit, extra_turn)].bound = TreeBound::kPruned;
    ++tree_.pruned;
  }

 private:
  // A new child of `parent` for the move `pit` (0-based) of the player to move there.
  int add(int parent, int pit, bool extra_turn) {
    if (tree_.nodes.size() >= max_nodes_)
      throw TreeTooLarge("the tree has more than " + std::to_string(max_nodes_) + " nodes");
    const TreeNode& p = tree_.nodes[parent];
    TreeNode node;
    node.parent = parent;
    node.pit = pit + 1;
    node.player = parent == 0 || p.extra_turn ? p.player : other(p.player);
    node.extra_turn = extra_turn;
    tree_.nodes.push_back(node);
    const int id = int(tree_.nodes.size()) - 1;
    tree_.nodes[parent].children.push_back(id);
    return id;
  }

  SearchTree& tree_;
  std::size_t max_nodes_;
  std::vector<int> path_;  // the nodes from the root to the one being searched
  int hint_ = -1;          // the hint of the node expanded last
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
    case TreeLeaf::kTable:
      return "table";
  }
  return "";
}

std::string summary(const SearchTree& t) {
  std::string s = to_string(t.root_position) + ", depth " + std::to_string(t.depth) + ": value " +
                  bound_text(t.value) + " for " + side_letter(t.root_position.mover) +
                  (t.exact ? " (exact game margin)" : " (heuristic, depth-limited)") + "; ";
  if (t.depth < t.requested_depth)
    s += "depth " + std::to_string(t.requested_depth) +
         " asked, the deepening stopped at an exact value; ";
  s += std::to_string(t.searched) + (t.searched == 1 ? " node searched, " : " nodes searched, ") +
       std::to_string(t.pruned) + (t.pruned == 1 ? " move pruned" : " moves pruned");
  return s;
}

}  // namespace

SearchTree trace_search(Rules rules, const Position& p, int depth, std::size_t max_nodes,
                        ExactOracle* oracle) {
  SearchTree tree;
  tree.root_position = p;
  tree.requested_depth = depth;
  TreeNode root;
  root.player = p.mover;
  root.alpha = -kTreeInf;
  root.beta = kTreeInf;
  tree.nodes.push_back(root);
  TreeRecorder recorder(tree, std::max<std::size_t>(max_nodes, 1));
  SearchOptions options;
  options.oracle = oracle;
  options.randomize = false;
  SearchLimits limits;
  limits.depth = depth;
  const SearchResult res = with_rules(rules, [&](auto r) {
    return traced_search<decltype(r)>(p, limits, options, SearchTraceTo<TreeRecorder>{&recorder});
  });
  tree.value = res.value;
  tree.exact = res.exact;
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
      if (n.table_move) line += "  table move";
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
      if (n.table_move) label += "\\ntable move";
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
