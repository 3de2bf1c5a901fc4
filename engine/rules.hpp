// The registry of rule sets: their names and database codes, and the one run-time dispatch.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/rules/kalah.hpp"
#include "engine/rules/wetherell.hpp"

namespace kalah {

// What a rule policy states (engine/rules/; docs/CONTRIBUTING.md, "Add a rule set"): besides
// R::apply(board, pit[, trace]), its move kernel,
//   kName                  the name users type (--rules) and see
//   kCode                  its code in database keys (db/FORMAT.md); never reused
//   kSummary               one line for --help and the manual page: what the rules are
//   kStartStones           stones a pit in the game its tools start by default (the page's new
//                          game, kalah bench query's starts)
//   game_ends(mover_empty, opponent_empty)  the natural end of the game, from whose pits are empty
//   kDecidedAtHalf         play may stop once a kalah holds more than half the stones
//   kLeastGain             every position not over has a move that puts at least this many
//                          stones into the mover's kalah (the solver's lower bound)
// The solver's tuning per rule set is the solver's own (solver/exhaustive/solve_tuning.hpp).
template <class R>
concept RuleSet = requires(bool empty) {
  { R::kName } -> std::convertible_to<std::string_view>;
  { R::kCode } -> std::convertible_to<std::uint8_t>;
  { R::kSummary } -> std::convertible_to<std::string_view>;
  { R::kStartStones } -> std::convertible_to<int>;
  { R::game_ends(empty, empty) } -> std::same_as<bool>;
  { R::kDecidedAtHalf } -> std::convertible_to<bool>;
  { R::kLeastGain } -> std::convertible_to<int>;
};

template <RuleSet... Rs>
struct RuleList {};

// Every rule set the tools, the database and the dispatch below know, in --help order.
using RegisteredRules = RuleList<Wetherell, KalahRules, KalahEmptyCapture>;

// A rule set at run time; its value is the policy's database code.
enum class Rules : std::uint8_t {
  kWetherell = Wetherell::kCode,
  kKalah = KalahRules::kCode,
  kKalahEmptyCapture = KalahEmptyCapture::kCode,
};

template <RuleSet R>
constexpr Rules rules_id = Rules(R::kCode);

namespace detail {

template <class F, class First, class... Rest>
decltype(auto) dispatch(Rules r, F&& f, RuleList<First, Rest...>) {
  if constexpr (sizeof...(Rest) == 0) {
    return std::forward<F>(f)(First{});  // r is registered, so it is the last one
  } else {
    if (r == rules_id<First>) return std::forward<F>(f)(First{});
    return dispatch(r, std::forward<F>(f), RuleList<Rest...>{});
  }
}

template <class... Rs>
constexpr std::optional<Rules> find_rules(RuleList<Rs...>, auto matches) {
  std::optional<Rules> found;
  (void)((matches(Rs::kName, Rs::kCode) && !found ? (found = rules_id<Rs>, true) : false) || ...);
  return found;
}

}  // namespace detail

// Calls f(Policy{}) with the policy type of a registered r: the single run-time branch on rules.
template <class F>
decltype(auto) with_rules(Rules r, F&& f) {
  return detail::dispatch(r, std::forward<F>(f), RegisteredRules{});
}

constexpr std::string_view rules_name(Rules r) {
  std::string_view name = "?";
  detail::find_rules(RegisteredRules{}, [&](std::string_view n, std::uint8_t c) {
    if (Rules(c) == r) name = n;
    return Rules(c) == r;
  });
  return name;
}

constexpr std::optional<Rules> parse_rules(std::string_view s) {
  return detail::find_rules(RegisteredRules{},
                            [&](std::string_view n, std::uint8_t) { return n == s; });
}

// The rule set's kSummary and kStartStones.
inline std::string_view rules_summary(Rules r) {
  return with_rules(r, []<class R>(R) { return std::string_view(R::kSummary); });
}
inline int start_stones(Rules r) {
  return with_rules(r, []<class R>(R) { return R::kStartStones; });
}

// The registered rule set with database code c, if any.
constexpr std::optional<Rules> rules_from_code(std::uint8_t c) {
  return detail::find_rules(RegisteredRules{},
                            [&](std::string_view, std::uint8_t code) { return code == c; });
}

// Every registered rule set, in --help order.
template <class F>
void for_each_rules(F&& f) {
  [&]<class... Rs>(RuleList<Rs...>) { (f(rules_id<Rs>), ...); }(RegisteredRules{});
}

// The registered names in --help order, joined by ", " and `last` before the last one.
inline std::string rules_names(std::string_view last = ", ") {
  std::string out;
  int left = 0;
  for_each_rules([&](Rules) { ++left; });
  for_each_rules([&](Rules r) {
    --left;
    out += rules_name(r);
    if (left > 0) out += left == 1 ? last : std::string_view(", ");
  });
  return out;
}

}  // namespace kalah
