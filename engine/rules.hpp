// Rule sets of RULES.md as compile-time policies, plus the one run-time dispatch that picks them.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace kalah {

enum class Rules { kWetherell, kKalah, kKalahEmptyCapture };

// The relay / 2-or-3 chained capture etude; ends when the side to move has no stones.
struct Wetherell {
  static constexpr Rules kId = Rules::kWetherell;
  static constexpr bool kRelayCapture = true;  // false: extra turn + opposite-pit capture
  static constexpr bool kEmptyCapture = false;
};

// Literature Kalah: extra turn in own kalah; capture of the opposite pit only if it is non-empty.
struct KalahRules {
  static constexpr Rules kId = Rules::kKalah;
  static constexpr bool kRelayCapture = false;
  static constexpr bool kEmptyCapture = false;
};

// Irving, Donkers & Uiterwijk's Kalah: the lone stone is captured even opposite an empty pit.
struct KalahEmptyCapture {
  static constexpr Rules kId = Rules::kKalahEmptyCapture;
  static constexpr bool kRelayCapture = false;
  static constexpr bool kEmptyCapture = true;
};

constexpr std::string_view rules_name(Rules r) {
  switch (r) {
    case Rules::kWetherell:
      return "wetherell";
    case Rules::kKalah:
      return "kalah";
    case Rules::kKalahEmptyCapture:
      return "kalah-empty-capture";
  }
  return "?";
}

inline std::optional<Rules> parse_rules(std::string_view s) {
  for (Rules r : {Rules::kWetherell, Rules::kKalah, Rules::kKalahEmptyCapture})
    if (rules_name(r) == s) return r;
  return std::nullopt;
}

// Calls f(Policy{}) with the policy type for r: the single run-time branch on the rule set.
template <class F>
decltype(auto) with_rules(Rules r, F&& f) {
  switch (r) {
    case Rules::kKalah:
      return std::forward<F>(f)(KalahRules{});
    case Rules::kKalahEmptyCapture:
      return std::forward<F>(f)(KalahEmptyCapture{});
    case Rules::kWetherell:
      break;
  }
  return std::forward<F>(f)(Wetherell{});
}

}  // namespace kalah
