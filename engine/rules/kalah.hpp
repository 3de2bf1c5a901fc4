// Literature Kalah (RULES.md, "kalah" and "kalah-empty-capture"): extra turns, opposite captures.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/board.hpp"

namespace kalah {

// The move kernel of extra-turn rule sets, written once for every Board. Self (the policy) says
// whether a lone stone captures opposite an empty pit: Self::kCaptureOppositeEmpty.
template <class Self>
struct ExtraTurnRules {
  // Plays own pit `pit` (non-empty, game not over) on b without passing the turn: sowing; an extra
  // turn when the last stone falls into the mover's kalah; a capture of that stone and the
  // opposite pit's when it falls into an empty own pit. Returns whether the mover moves again.
  template <Board B, class Trace = NoTrace>
  static bool apply(B& b, int pit, Trace&& trace = Trace{}) {
    const int m = b.m();
    const int last = b.sow(pit);
    if (last == m) {
      trace.extra_turn();
      return true;
    }
    if (last < m && b.cell(last) == 1) {
      const int facing = 2 * m - last;
      if (Self::kCaptureOppositeEmpty || b.cell(facing) > 0) {
        const int won = b.take(last) + b.take(facing);
        trace.capture_opposite(last, won);
        b.add(m, won);
      }
    }
    return false;
  }

  // The game ends when either side has no stone in its pits.
  static constexpr bool game_ends(bool mover_empty, bool opponent_empty) {
    return mover_empty || opponent_empty;
  }
  static constexpr bool kDecidedAtHalf = false;  // play goes on to the natural end
};

// Kalah as most sources state it: capture only opposite a non-empty pit.
struct KalahRules : ExtraTurnRules<KalahRules> {
  static constexpr std::string_view kName = "kalah";
  static constexpr std::uint8_t kCode = 1;  // the rule set's code in database keys
  static constexpr std::string_view kSummary =
      "Kalah with extra turns and captures opposite a non-empty pit, as most sources state it";
  static constexpr int kStartStones = 4;  // Kalah(6,4), solved in the literature
  static constexpr bool kCaptureOppositeEmpty = false;
  // A sowing that stays on the mover's side may end opposite an empty pit and win nothing.
  static constexpr int kLeastGain = 0;
};

// Irving, Donkers & Uiterwijk's Kalah: the lone stone is captured even opposite an empty pit.
struct KalahEmptyCapture : ExtraTurnRules<KalahEmptyCapture> {
  static constexpr std::string_view kName = "kalah-empty-capture";
  static constexpr std::uint8_t kCode = 2;
  static constexpr std::string_view kSummary =
      "Kalah with extra turns and captures opposite any pit, as Irving, Donkers and Uiterwijk "
      "solved it";
  static constexpr int kStartStones = 4;
  static constexpr bool kCaptureOppositeEmpty = true;
  // The mover's non-empty pit nearest its kalah either reaches the kalah or ends in an own pit
  // that was empty (every pit after it is), which captures at least the last stone.
  static constexpr int kLeastGain = 1;
};

}  // namespace kalah
