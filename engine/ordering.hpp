// The engine's move order, written once: the rank of a move, the lazy pick, and the ordered list.
#pragma once

#include "move.hpp"

namespace kalah {

// The rank of a move: its order key (the mover's kalah difference after it, higher first), then
// its pit (0-based, lower first), packed so that a larger rank comes first.
constexpr int order_rank(int key, int pit) {
  return key * 16 + (15 - pit);
}
static_assert(kMaxPits <= 16, "order_rank packs the pit in 4 bits");
constexpr int kSearchedRank = -(1 << 30);  // the rank of a move already picked

// The engine's move order, one pick at a time. Among n moves with ranks rank[i] and pits pit[i]
// (in pit order), returns the index of the next move: `hint` (a 0-based pit, given for the first
// pick only; -1 for none) if it is among them, else the highest rank. The picked rank becomes
// kSearchedRank, so n picks visit every move once; a search that cuts off stops picking.
inline int next_child(int* rank, const int* pit, int n, int hint) {
  if (hint >= 0) {
    for (int i = 0; i < n; ++i)
      if (pit[i] == hint) {
        rank[i] = kSearchedRank;
        return i;
      }
  }
  int pick = 0;
  for (int i = 1; i < n; ++i)
    if (rank[i] > rank[pick]) pick = i;
  rank[pick] = kSearchedRank;
  return pick;
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

// Fills out[] with the legal moves of p (not over) in the engine's order: every pick of
// next_child, `hint` (0-based, -1 for none) first. Returns the count.
template <class R>
int ordered_children(const Position& p, int hint, Child* out) {
  Child moves[kMaxPits];
  int rank[kMaxPits], pit[kMaxPits];
  int n = 0;
  for (int i = 0; i < p.m; ++i) {
    if (p.own_pit(i) == 0) continue;
    Child& c = moves[n];
    c.pos = p;
    c.pit = i;
    c.sign = play_move<R>(c.pos, i) ? 1 : -1;
    c.order_key = c.sign * c.pos.kalah_difference();
    rank[n] = order_rank(c.order_key, i);
    pit[n] = i;
    ++n;
  }
  for (int k = 0; k < n; ++k) out[k] = moves[next_child(rank, pit, n, k == 0 ? hint : -1)];
  return n;
}

}  // namespace kalah
