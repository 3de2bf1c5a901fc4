// solve(): picks the board representation and the rule policy once, then runs the search.
#include "solve.hpp"

#include "solve_driver.hpp"

namespace kalah {

SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt) {
  return with_rules(rules, [&](auto policy) {
    using R = decltype(policy);
    if (p.pit_stones() <= solve_detail::ByteBoard<R>::kMaxPitStones)
      return solve_detail::solve_on<solve_detail::ByteBoard<R>>(p, opt);
    return solve_detail::solve_on<solve_detail::PositionBoard<R>>(p, opt);
  });
}

}  // namespace kalah
