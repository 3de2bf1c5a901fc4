// solve(): picks the board representation and the rule policy once, then runs the search.
#include "solve.hpp"

#include "solve_driver.hpp"

namespace kalah {
namespace {

// Board sizes that get a register board of their own (each one more instance of the whole
// search); other sizes use the byte-array board.
template <class R, int... Ms>
bool solve_registered(const Position& p, const SolveOptions& opt, SolveResult& out,
                      std::integer_sequence<int, Ms...>) {
  return ((p.m == Ms &&
           (out = solve_detail::solve_on<solve_detail::SolveBoard<R, RegisterBoard<Ms>>>(p, opt),
            true)) ||
          ...);
}

}  // namespace

SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt) {
  return with_rules(rules, [&](auto policy) {
    using R = decltype(policy);
    if (p.pit_stones() <= ByteArrayBoard<>::kMaxStones) {
      SolveResult r;
      if (solve_registered<R>(p, opt, r, std::integer_sequence<int, 4, 5, 6>{})) return r;
      return solve_detail::solve_on<solve_detail::SolveBoard<R, ByteArrayBoard<>>>(p, opt);
    }
    return solve_detail::solve_on<solve_detail::SolveBoard<R, WideBoard>>(p, opt);
  });
}

}  // namespace kalah
