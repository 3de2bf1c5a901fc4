// solve(): picks the board representation and the rule policy once, then runs the search.
#include "solve.hpp"

#include "solve_driver.hpp"

namespace kalah {

SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt) {
  return with_rules(rules, [&](auto policy) {
    using R = decltype(policy);
    if (p.pit_stones() <= ByteArrayBoard<>::kMaxStones) {
      // Register boards for the common sizes (each one more instance of the whole search), the
      // byte-array board for the others.
      SolveResult r;
      if (with_pits(
              p.m,
              [&](auto m) {
                r = solve_detail::solve_on<solve_detail::SolveBoard<R, RegisterBoard<m()>>>(p, opt);
              },
              std::integer_sequence<int, 4, 5, 6>{}))
        return r;
      return solve_detail::solve_on<solve_detail::SolveBoard<R, ByteArrayBoard<>>>(p, opt);
    }
    return solve_detail::solve_on<solve_detail::SolveBoard<R, WideBoard>>(p, opt);
  });
}

}  // namespace kalah
