// What a solve records of its root: each move's proven bounds and the root's bounds from them,
// written once for the solver on one machine (RootSolver) and the distributed one (RootSplit).
#pragma once

#include <algorithm>
#include <limits>
#include <utility>

namespace kalah {

// Smallest value >= v / largest value <= v with the parity of `parity`.
inline int round_up(int v, int parity) {
  return ((v - parity) & 1) ? v + 1 : v;
}
inline int round_down(int v, int parity) {
  return ((v - parity) & 1) ? v - 1 : v;
}

// What a fail-soft null-window test against `level` proved of v (of parity `parity`): r >= level
// proves v >= round_up(r), else v <= round_down(r).
inline int proven_bound(int r, int level, int parity) {
  return r >= level ? round_up(r, parity) : round_down(r, parity);
}

// Proven bounds lower <= v <= upper on the margin v of one root move; every margin of a root has
// its parity, and so do the bounds.
struct ProvenBounds {
  int lower, upper;
  // What a fail-soft test proved: v >= bound when at_least, else v <= bound.
  void narrow(bool at_least, int bound, int parity) {
    if (at_least)
      lower = std::max(lower, round_up(bound, parity));
    else
      upper = std::min(upper, round_down(bound, parity));
  }
};

// The root's margin is the best of its moves': at least `lo` (proven of the root itself) and every
// move's lower bound, at most `hi` and the best of the moves' upper bounds. `moves` holds objects
// derived from ProvenBounds; a root without moves keeps [lo, hi].
template <class Moves>
std::pair<int, int> root_bounds(const Moves& moves, int lo = std::numeric_limits<int>::min(),
                                int hi = std::numeric_limits<int>::max()) {
  if (std::empty(moves)) return {lo, hi};
  int lower = lo, upper = std::numeric_limits<int>::min();
  for (const ProvenBounds& m : moves) {
    lower = std::max(lower, m.lower);
    upper = std::max(upper, std::min(m.upper, hi));
  }
  return {lower, upper};
}

}  // namespace kalah
