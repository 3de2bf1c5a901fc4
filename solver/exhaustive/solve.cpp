// solve(): picks the board representation and the rule policy once, then runs the search.
#include "solve.hpp"

#include <algorithm>

#include "physical_memory.hpp"
#include "solve_driver.hpp"

namespace kalah {

std::size_t auto_tt_bytes(const Position& p, int oracle_stones, bool untabled_levels) {
  const int beyond = p.pit_stones() - std::max(oracle_stones, 0);
  const int from = untabled_levels ? 28 : 24;
  const std::size_t base_mb = untabled_levels ? 16 : 64;
  const int doublings = std::clamp((beyond - from + 1) / 2, 0, untabled_levels ? 7 : 5);
  const std::size_t quarter_ram_mb = std::size_t(physical_memory_bytes() / 4 >> 20);
  return std::max<std::size_t>(1, std::min(base_mb << doublings, quarter_ram_mb)) << 20;
}

std::size_t auto_tt_bytes(Rules rules, const Position& p, const ExactOracle* oracle) {
  return auto_tt_bytes(p, oracle != nullptr ? oracle->max_stones() : -1,
                       untabled_by_default(rules, oracle));
}

bool untabled_by_default(Rules rules, const ExactOracle* oracle) {
  const auto* probe = dynamic_cast<const Probe*>(oracle);
  return probe != nullptr && probe->resident() &&
         with_rules(rules, [](auto r) { return decltype(r)::kUntabledAboveResident; });
}

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
