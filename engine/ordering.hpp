// The engine's move order, written once: the priority of a move and the ordered list of moves.
#pragma once

#include "engine/move.hpp"
#include "engine/node_loop.hpp"

namespace kalah {

// The engine's priority of a move: its order key (the mover's kalah difference after it, higher
// first), then its pit (0-based, lower first).
constexpr int order_rank(int key, int pit) {
  return key * 16 + (15 - pit);
}
static_assert(kMaxPits <= 16, "order_rank packs the pit in 4 bits");
constexpr int kHintRank = (1 << 26) - 1;  // above every order_rank, within MoveQueue's range
static_assert(order_rank(kMaxTotalStones, 0) < kHintRank);
// The move's MoveQueue key: the hint (the table's move, 0-based; -1 for none) before every other
// move, the others by order_rank.
constexpr int engine_key(int key, int pit, int hint) {
  return move_key(pit == hint ? kHintRank : order_rank(key, pit), pit);
}

// One legal move and the position it leads to. `sign` is +1 when the mover moves again (kalah
// rules' extra turn) and -1 when the turn passes: the move's value for the mover is sign *
// value(child).
struct Child {
  Position pos;
  int pit;  // 0-based pit of the mover
  int sign;
  int order_key;  // static evaluation of the child for the mover (kalah difference)
};

// Fills out[] with the legal moves of p (not over) in the engine's order: the MoveQueue of their
// engine_key, `hint` (0-based, -1 for none) first. Returns the count.
template <class R>
int ordered_children(const Position& p, int hint, Child* out) {
  Child moves[kMaxPits];
  MoveQueue<kMaxPits> queue;
  for (int i = 0; i < p.m; ++i) {
    if (p.own_pit(i) == 0) continue;
    Child& c = moves[i];
    c.pos = p;
    c.pit = i;
    c.sign = play_move<R>(c.pos, i) ? 1 : -1;
    c.order_key = c.sign * c.pos.kalah_difference();
    queue.push(engine_key(c.order_key, i, hint));
  }
  for (int k = 0; k < queue.size(); ++k) out[k] = moves[queue.take(k)];
  return queue.size();
}

}  // namespace kalah
