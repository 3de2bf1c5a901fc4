// Move generation with the seed's fixed ordering: best static evaluation first, hint move first.
#pragma once

#include <algorithm>

#include "move.hpp"

namespace kalah {

// One legal move and the position it leads to. `sign` is +1 when the mover moves again (kalah
// rules' extra turn) and -1 when the turn passes: the move's value for the mover is sign *
// value(child).
struct Child {
  Position pos;
  int pit;  // 0-based pit of the mover
  int sign;
  int order_key;  // static evaluation of the child for the mover (kalah difference)
};

// Fills out[] with the legal moves of p (not over) ordered: `hint` (0-based, -1 for none) first,
// then by static evaluation for the mover, best first, lower pit first among equals. Returns count.
// This is the engine's move order; search.cpp produces the same order lazily on its own boards,
// and `kalah tree` and the tests use this reference.
template <class R>
int ordered_children(const Position& p, int hint, Child* out) {
  int n = 0;
  for (int i = 0; i < p.m; ++i) {
    if (p.own_pit(i) == 0) continue;
    Child& c = out[n++];
    c.pos = p;
    c.pit = i;
    c.sign = play_move<R>(c.pos, i) ? 1 : -1;
    c.order_key = c.sign * c.pos.kalah_difference();
  }
  // Insertion sort: at most 12 moves, stable, so lower pits stay first among equal keys.
  for (int a = 1; a < n; ++a) {
    Child tmp = out[a];
    int b = a;
    while (b > 0 && out[b - 1].order_key < tmp.order_key) {
      out[b] = out[b - 1];
      --b;
    }
    out[b] = tmp;
  }
  if (hint >= 0) {
    for (int a = 0; a < n; ++a) {
      if (out[a].pit != hint) continue;
      Child tmp = out[a];
      for (int b = a; b > 0; --b) out[b] = out[b - 1];
      out[0] = tmp;
      break;
    }
  }
  return n;
}

}  // namespace kalah
