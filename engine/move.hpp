// Move application for each rule set: sowing with laps, relays, captures, extra turns.
#pragma once

#include <cassert>

#include "position.hpp"

namespace kalah {

// Receives what happens inside a move, for display. Pits are 0-based from their owner's left.
struct NoTrace {
  void relay(int /*own_pit*/) {}
  void capture(int /*opp_pit*/, int /*stones*/) {}  // wetherell 2-or-3 capture, one pit at a time
  void capture_opposite(int /*own_pit*/, int /*stones*/) {}  // kalah rules: total to the kalah
  void extra_turn() {}
};

namespace detail {

// Sows the stones of ring cell `from` along the mover's ring [0, 2m] and returns the last cell.
inline int sow(Position& p, int from) {
  const int ring = 2 * p.m + 1;
  int s = p.cell[from];
  p.cell[from] = 0;
  if (s >= ring) {
    const Stones laps = Stones(s / ring);
    for (int c = 0; c < ring; ++c) p.cell[c] += laps;
    s %= ring;
    if (s == 0) return from;
  }
  int c = from;
  for (int k = 0; k < s; ++k) {
    if (++c == ring) c = 0;
    ++p.cell[c];
  }
  return c;
}

}  // namespace detail

// Plays own pit `pit` (0-based, non-empty, position not over) and returns true when the same
// player moves again (kalah rules' extra turn); otherwise the position is flipped to the opponent.
template <class R, class Trace = NoTrace>
bool play_move(Position& p, int pit, Trace&& trace = Trace{}) {
  assert(pit >= 0 && pit < p.m && p.own_pit(pit) > 0);
#ifndef NDEBUG
  const int total_before = p.total_stones();
#endif
  const int m = p.m;
  bool again = false;
  if constexpr (R::kRelayCapture) {
    int from = pit;
    while (true) {
      const int s = p.cell[from];
      const int last = detail::sow(p, from);
      if (last < m) {
        // Relay: the last stone fell into a non-empty own pit after reaching the opponent's side.
        if (p.cell[last] > 1 && s > m - from) {
          trace.relay(last);
          from = last;
          continue;
        }
      } else if (last > m) {
        for (int c = last; c > m && (p.cell[c] == 2 || p.cell[c] == 3); --c) {
          trace.capture(c - m - 1, p.cell[c]);
          p.cell[m] += p.cell[c];
          p.cell[c] = 0;
        }
      }
      break;
    }
  } else {
    const int last = detail::sow(p, pit);
    if (last == m) {
      trace.extra_turn();
      again = true;
    } else if (last < m && p.cell[last] == 1) {
      const int facing = 2 * m - last;
      if (R::kEmptyCapture || p.cell[facing] > 0) {
        const int won = 1 + p.cell[facing];
        trace.capture_opposite(last, won);
        p.cell[m] += Stones(won);
        p.cell[last] = 0;
        p.cell[facing] = 0;
      }
    }
  }
  assert(p.total_stones() == total_before);
  if (!again) p.flip();
  return again;
}

// Run-time dispatch for callers outside hot loops. Throws InputError for an illegal move.
bool play_move(Rules r, Position& p, int pit_1based);

}  // namespace kalah
