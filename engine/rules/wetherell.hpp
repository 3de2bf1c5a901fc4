// The Kalah etude (RULES.md, "wetherell"): relays, chained captures, no extra turn.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/board.hpp"

namespace kalah {

// The move kernel of relay rule sets, written once for every Board. Self (the policy) says which
// counts a chained capture takes: Self::captures(stones).
template <class Self>
struct RelayRules {
  // Plays own pit `pit` (non-empty, game not over) on b without passing the turn: sowing; a relay
  // when the last stone falls into a non-empty own pit after the stones reached the opponent's
  // side; else, when it falls on the opponent's side, the captures of that pit and the ones before
  // it while each holds a capturable count. Returns whether the mover moves again (never here).
  template <Board B, class Trace = NoTrace>
  static bool apply(B& b, int pit, Trace&& trace = Trace{}) {
    const int m = b.m();
    int from = pit;
    while (true) {
      const int s = b.cell(from);
      const int last = b.sow(from);
      if (last < m) {
        if (b.cell(last) > 1 && s > m - from) {
          trace.relay(last);
          from = last;
          continue;
        }
      } else if (last > m) {
        int won = 0;
        for (int c = last; c > m; --c) {
          const int stones = b.cell(c);
          if (!Self::captures(stones)) break;
          trace.capture(c - m - 1, stones);
          won += b.take(c);
        }
        b.add(m, won);
      }
      return false;
    }
  }
};

struct Wetherell : RelayRules<Wetherell> {
  static constexpr std::string_view kName = "wetherell";
  static constexpr std::uint8_t kCode = 0;  // the rule set's code in database keys
  static constexpr std::string_view kSummary =
      "the Kalah etude: relays and chained captures of 2 or 3 stones, decided at more than half";
  static constexpr int kStartStones = 3;  // the 3-stone etude

  static constexpr bool captures(int stones) { return stones == 2 || stones == 3; }
  // The game ends when the side to move has no stone in its pits.
  static constexpr bool game_ends(bool mover_empty, bool /*opponent_empty*/) { return mover_empty; }
  // Play may stop once a kalah holds more than half the stones: the winner is known.
  static constexpr bool kDecidedAtHalf = true;
  // A sowing that stays on the mover's side wins nothing (captures are on the opponent's side).
  static constexpr int kLeastGain = 0;
};

}  // namespace kalah
