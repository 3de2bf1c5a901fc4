// The hooks through which the engine's search reports each step it takes; NoSearchTrace reports
// none.
#pragma once

#include <concepts>
#include <cstdint>

namespace kalah {

// What decided the value of a node the search reached.
enum class TreeLeaf : std::uint8_t {
  kInner,       // not a leaf: its moves were searched
  kEvaluation,  // no plies left: the kalah difference
  kGameOver,    // the game has ended: the final margin
  kOracle,      // the exact oracle's (the database's) value
  kTable,       // a transposition-table entry that is exact or a bound outside the window
};

// The search's trace policy (SearchImpl's Trace parameter). Pits are 0-based; values and windows
// are for the player making the move (negamax). For each iteration of the deepening the search
// calls iteration(depth), then expand(hint) for the root; a node it expands reports expand(hint),
// `hint` being the pit tried first when it is legal (the transposition table's best move, -1 for
// none), and for each move in search order enter(pit, alpha, beta, extra_turn) (the window the
// move is searched with), the child's own report (expand(...) and its moves, or leaf(kind)) and
// result(value) (a fail-soft value within the window: <= alpha an upper bound, >= beta a lower
// bound); after a cut-off, pruned(pit, extra_turn) for each move left, in search order. An
// iteration that the node or time budget stops ends without its reports closed.
template <class T>
concept SearchTrace = requires(T t, int i, bool b, TreeLeaf leaf) {
  { T::kEnabled } -> std::convertible_to<bool>;
  t.iteration(i);
  t.expand(i);
  t.enter(i, i, i, b);
  t.leaf(leaf);
  t.result(i);
  t.pruned(i, b);
};

// The untraced search: every hook is empty, so the search compiles as if it had none.
struct NoSearchTrace {
  static constexpr bool kEnabled = false;
  void iteration(int) {}
  void expand(int) {}
  void enter(int, int, int, bool) {}
  void leaf(TreeLeaf) {}
  void result(int) {}
  void pruned(int, bool) {}
};
static_assert(SearchTrace<NoSearchTrace>);

// A trace policy that forwards every report to *target, a recorder that outlives the search.
template <class T>
struct SearchTraceTo {
  static constexpr bool kEnabled = true;
  T* target;
  void iteration(int depth) { target->iteration(depth); }
  void expand(int hint) { target->expand(hint); }
  void enter(int pit, int alpha, int beta, bool extra_turn) {
    target->enter(pit, alpha, beta, extra_turn);
  }
  void leaf(TreeLeaf kind) { target->leaf(kind); }
  void result(int value) { target->result(value); }
  void pruned(int pit, bool extra_turn) { target->pruned(pit, extra_turn); }
};

}  // namespace kalah
