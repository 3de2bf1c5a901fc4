// Move application for each rule set: sowing with laps, relays, captures, extra turns.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>

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
  if (s >= ring) [[unlikely]] {
    const Stones laps = Stones(s / ring);
    for (int c = 0; c < ring; ++c) p.cell[c] += laps;
    s %= ring;
    if (s == 0) return from;
  }
  // The s < ring cells after `from` get one stone each: cells (from, stop] up to the ring's end,
  // then [0, wrap] from its start. Branch-free, eight cells at a time.
  const int end = from + s;
  const int stop = end < ring ? end : ring - 1;
  const int wrap = end - ring;  // < 0: no wrap
  using Lanes = std::int16_t __attribute__((vector_size(16)));
  const Lanes lo = Lanes{} + std::int16_t(from), hi = Lanes{} + std::int16_t(stop),
              wr = Lanes{} + std::int16_t(wrap);
  Lanes index = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int c = 0; c < ring; c += 8) {  // the last load ends at cell 23 < the 26 cells
    Lanes v;
    std::memcpy(&v, &p.cell[c], sizeof v);
    v -= ((index > lo) & (index <= hi)) | (index <= wr);  // a true lane is -1
    std::memcpy(&p.cell[c], &v, sizeof v);
    index += 8;
    if (c == 16) {  // ring 25 (12 pits): cell 24 lies past the third block
      if (24 > from && 24 <= stop) ++p.cell[24];
      break;
    }
  }
  return end < ring ? end : wrap;
}

// Plays own pit `pit` like play_move but leaves the board from the mover's side (no flip).
// Returns true when the mover moves again.
template <class R, class Trace>
bool apply_move(Position& p, int pit, Trace& trace) {
  const int m = p.m;
  if constexpr (R::kRelayCapture) {
    int from = pit;
    while (true) {
      const int s = p.cell[from];
      const int last = sow(p, from);
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
      return false;
    }
  } else {
    const int last = sow(p, pit);
    if (last == m) {
      trace.extra_turn();
      return true;
    }
    if (last < m && p.cell[last] == 1) {
      const int facing = 2 * m - last;
      if (R::kEmptyCapture || p.cell[facing] > 0) {
        const int won = 1 + p.cell[facing];
        trace.capture_opposite(last, won);
        p.cell[m] += Stones(won);
        p.cell[last] = 0;
        p.cell[facing] = 0;
      }
    }
    return false;
  }
}

// Pit masks for side_empty: the first m 16-bit lanes of three 64-bit words set.
inline constexpr auto kPitMasks = [] {
  std::array<std::array<std::uint64_t, 3>, kMaxPits + 1> masks{};
  for (int m = 0; m <= kMaxPits; ++m) {
    std::array<Stones, 12> lanes{};
    for (int i = 0; i < m; ++i) lanes[i] = 0xFFFF;
    masks[m] = std::bit_cast<std::array<std::uint64_t, 3>>(lanes);
  }
  return masks;
}();

// True when the m cells from `first` (0: the mover's pits, m+1: the opponent's) are all empty.
inline bool side_empty(const Position& p, int first) {
  static_assert(sizeof(Stones) * 12 == 3 * sizeof(std::uint64_t));
  static_assert(sizeof(p.cell) >= sizeof(Stones) * (kMaxPits + 1 + 12));  // the load stays inside
  std::uint64_t w[3];
  std::memcpy(w, &p.cell[first], sizeof w);
  const auto& mask = kPitMasks[p.m];
  return ((w[0] & mask[0]) | (w[1] & mask[1]) | (w[2] & mask[2])) == 0;
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
  const bool again = detail::apply_move<R>(p, pit, trace);
  assert(p.total_stones() == total_before);
  if (!again) p.flip();
  return again;
}

// Run-time dispatch for callers outside hot loops. Throws InputError for an illegal move.
bool play_move(Rules r, Position& p, int pit_1based);

}  // namespace kalah
