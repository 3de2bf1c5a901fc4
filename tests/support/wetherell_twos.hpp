// A rule set defined only in the tests: the etude with captures of exactly 2 stones.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/rules.hpp"

namespace kalah::test {

// Wetherell's relays and end of game, but a chained capture takes only pits holding 2.
struct WetherellTwos : RelayRules<WetherellTwos> {
  static constexpr std::string_view kName = "wetherell-twos";
  static constexpr std::uint8_t kCode = 200;  // not registered: no database holds it
  static constexpr std::string_view kSummary = "the etude with captures of exactly 2 stones";
  static constexpr int kStartStones = 3;

  static constexpr bool captures(int stones) { return stones == 2; }
  static constexpr bool game_ends(bool mover_empty, bool /*opponent_empty*/) { return mover_empty; }
  static constexpr bool kDecidedAtHalf = true;
  static constexpr int kLeastGain = 0;
};
static_assert(RuleSet<WetherellTwos>);

}  // namespace kalah::test
