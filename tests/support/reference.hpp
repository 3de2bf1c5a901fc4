// Plain reference searches for tests: no pruning, no tables, straight from the rules.
#pragma once

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/move.hpp"

namespace kalah::test {

// Depth-limited negamax: kalah difference at depth 0, the final margin where the game is over.
inline int reference_minimax(Rules rules, const Position& p, int depth) {
  if (is_over(rules, p)) return final_margin(p);
  if (depth == 0) return p.kalah_difference();
  int best = -1000000;
  for (int pit = 1; pit <= p.m; ++pit) {
    if (p.own_pit(pit - 1) == 0) continue;
    Position c = p;
    const bool again = play_move(rules, c, pit);
    const int v = reference_minimax(rules, c, depth - 1);
    best = std::max(best, again ? v : -v);
  }
  return best;
}

// The tests' exact oracle: whole-game margins by exhaustive negamax over play_move<R>, memoised on
// the full cells, kalahs included (small boards only). R: any rule policy, registered or not.
template <class R>
class PolicyReferenceMinimax {
 public:
  int margin(const Position& p) {
    std::vector<int> key(p.cell.begin(), p.cell.begin() + 2 * p.m + 2);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    int best = -1000000;
    if (is_over<R>(p)) {
      best = final_margin(p);
    } else {
      for (int pit = 0; pit < p.m; ++pit) {
        if (p.own_pit(pit) == 0) continue;
        Position c = p;
        const bool again = play_move<R>(c, pit);
        const int v = margin(c);
        best = std::max(best, again ? v : -v);
      }
    }
    return memo_[std::move(key)] = best;
  }

 private:
  std::map<std::vector<int>, int> memo_;
};

template <class... Rs>
std::tuple<PolicyReferenceMinimax<Rs>...> reference_solvers(RuleList<Rs...>);

// The same for a registered rule set chosen at run time.
class ReferenceMinimax {
 public:
  explicit ReferenceMinimax(Rules rules) : rules_(rules) {}

  int margin(const Position& p) {
    return with_rules(rules_, [&](auto r) {
      return std::get<PolicyReferenceMinimax<decltype(r)>>(solvers_).margin(p);
    });
  }

  // The margin of p for its side to move when it plays `pit` (1-based) and both sides then play
  // perfectly.
  int move_value(const Position& p, int pit) {
    Position c = p;
    const bool again = play_move(rules_, c, pit);
    return again ? margin(c) : -margin(c);
  }

  // The pits (1-based, ascending) whose move keeps p's margin; none where the game is over.
  std::vector<int> best_moves(const Position& p) {
    std::vector<int> out;
    if (is_over(rules_, p)) return out;
    const int v = margin(p);
    for (int pit = 1; pit <= p.m; ++pit)
      if (p.own_pit(pit - 1) > 0 && move_value(p, pit) == v) out.push_back(pit);
    return out;
  }

 private:
  Rules rules_;
  decltype(reference_solvers(RegisteredRules{})) solvers_;
};

// Every registered rule set (engine/rules.hpp), for tests that hold for any of them.
inline std::vector<Rules> registered_rules() {
  std::vector<Rules> all;
  for_each_rules([&](Rules r) { all.push_back(r); });
  return all;
}

}  // namespace kalah::test

namespace kalah {
// GoogleTest prints a Rules parameter by its name.
inline void PrintTo(Rules r, std::ostream* os) {
  *os << rules_name(r);
}
}  // namespace kalah

namespace kalah::test {

// Test-name suffix for a rule set: "wetherell", "kalah", "kalahemptycapture".
inline std::string rules_test_name(Rules r) {
  std::string n(rules_name(r));
  std::erase(n, '-');
  return n;
}

}  // namespace kalah::test
