// The engine search's tree at a given depth, recorded node by node for display (`kalah tree`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "engine/search_trace.hpp"

namespace kalah {

// How the recorded value of a move relates to the true depth-limited minimax value of that move,
// for the player making it (fail-soft alpha-beta inside the window its parent searched it with).
enum class TreeBound : std::uint8_t {
  kExact,   // inside the window: the value itself
  kLower,   // >= beta (fail-high): the move refutes the parent's alternatives; later moves cut off
  kUpper,   // <= alpha (fail-low): the move is no better than one already found
  kPruned,  // never searched: a cut-off at the parent made it irrelevant
};

struct TreeNode {
  int parent = -1;             // index into SearchTree::nodes; -1 for the root
  int pit = 0;                 // 1-based pit of the move into this node; 0 for the root
  Side player = Side::kSouth;  // who made the move (for the root: the side to move)
  int value = 0;               // for `player`; meaningless when pruned
  int alpha = 0, beta = 0;     // the parent's window for this move, for `player` (+-kTreeInf: none)
  TreeBound bound = TreeBound::kExact;
  TreeLeaf leaf = TreeLeaf::kInner;
  bool extra_turn = false;    // the move gave `player` another move (kalah rules)
  bool table_move = false;    // searched first as the transposition table's best move here
  std::vector<int> children;  // in search order, pruned ones included
};

constexpr int kTreeInf = 1 << 20;

struct SearchTree {
  Position root_position;
  int depth = 0;                // the iteration recorded
  int requested_depth = 0;      // > depth when an earlier iteration was exact: the deepening stops
  std::vector<TreeNode> nodes;  // nodes[0] is the root
  int value = 0;                // root value for the side to move
  bool exact = false;           // no heuristic leaf or table value: value is the exact game margin
  std::uint64_t searched = 0;   // nodes searched (the root included)
  std::uint64_t pruned = 0;     // moves shown as pruned
};

// Thrown by trace_search when the tree would exceed its node limit.
struct TreeTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The engine's search (Searcher::search with a fresh transposition table, no random choice) of
// `p` (not over) to `depth` plies, its last iteration recorded through the search's trace hooks:
// what the engine does at that depth after the iterations before it filled the table. So the
// root's moves carry the engine's root windows (the first move (-inf, +inf), each later one
// (best - 1, +inf), ties kept exact); each node searches first the table's best move when it has
// one (`table_move`), then the rest in the engine's order (ordering.hpp); a node may end as a
// `table` leaf where a stored value or bound decides its window; the moves of depth-1 nodes are
// the leaves the engine values inline. Leaves are also ends of game, oracle answers and the kalah
// difference at depth 0. When an iteration before `depth` is exact, the deepening stops and that
// iteration is recorded (tree.depth). Throws TreeTooLarge when an iteration would record more
// than max_nodes nodes (searched + pruned).
SearchTree trace_search(Rules rules, const Position& p, int depth, std::size_t max_nodes,
                        ExactOracle* oracle = nullptr);

// Indented text, one line per node; a header explains the notation.
std::string tree_to_text(const SearchTree& tree);
// Graphviz DOT: `dot -Tpng` renders it.
std::string tree_to_dot(const SearchTree& tree);

}  // namespace kalah
