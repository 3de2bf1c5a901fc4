// solve(): picks the board representation and the rule policy once, then runs the search.
#include "solver/exhaustive/solve.hpp"

#include <algorithm>
#include <string>

#include "engine/physical_memory.hpp"
#include "solver/exhaustive/root_solver.hpp"
#include "solver/exhaustive/solve_tuning.hpp"

namespace kalah {

std::size_t auto_tt_bytes(const Position& p, int oracle_stones, bool tt_skip_levels) {
  const int beyond = p.pit_stones() - std::max(oracle_stones, 0);
  const std::size_t base_mb = tt_skip_levels ? 16 : 64;
  int doublings;  // of base_mb (solve.hpp)
  if (tt_skip_levels)
    doublings = std::clamp((beyond - 27) / 2, 0, 7);
  else if (p.pit_stones() >= 48)
    doublings = std::clamp(beyond - 20, 0, 5);
  else
    doublings = std::clamp((beyond - 23) / 2, 0, 5);
  const std::size_t quarter_ram_mb = std::size_t(physical_memory_bytes() / 4 >> 20);
  return std::max<std::size_t>(1, std::min(base_mb << doublings, quarter_ram_mb)) << 20;
}

std::size_t auto_tt_bytes(Rules rules, const Position& p, const ExactOracle* oracle) {
  return auto_tt_bytes(p, oracle != nullptr ? oracle->max_stones() : -1,
                       tt_skip_by_default(rules, oracle));
}

bool tt_skip_by_default(Rules rules, const ExactOracle* oracle) {
  const auto* probe = dynamic_cast<const Probe*>(oracle);
  return probe != nullptr && probe->resident() && tt_skip_tuned(rules);
}

bool tt_skip_tuned(Rules rules) {
  return with_rules(rules, [](auto r) { return SolveTuning<decltype(r)>::kTTSkipAboveResident; });
}

namespace {

// run(RootSolver<B>&) on the board type B for p under `rules`: register boards for the common
// sizes (each one more instance of the whole search), the byte-array board for the others, the
// wide board beyond its stones.
template <class Result, class Run>
Result with_root_solver(Rules rules, const Position& p, const SolveOptions& opt, const Run& run) {
  return with_rules(rules, [&](auto policy) {
    using R = decltype(policy);
    using solve_detail::RootSolver;
    using solve_detail::SolveBoard;
    if (p.pit_stones() <= ByteArrayBoard<>::kMaxStones) {
      Result r;
      if (with_pits(
              p.m,
              [&](auto m) {
                RootSolver<SolveBoard<R, RegisterBoard<m()>>> root(p, opt);
                r = run(root);
              },
              std::integer_sequence<int, 4, 5, 6>{}))
        return r;
      RootSolver<SolveBoard<R, ByteArrayBoard<>>> root(p, opt);
      return run(root);
    }
    RootSolver<SolveBoard<R, WideBoard>> root(p, opt);
    return run(root);
  });
}

}  // namespace

std::string moves_text(const SolveResult& r) {
  std::string s;
  for (const MoveBound& m : r.moves) {
    if (!s.empty()) s += ", ";
    s += "pit " + std::to_string(m.pit) + " ";
    if (m.exact())
      s += "= " + std::to_string(m.lower);
    else if (m.upper < r.lower)
      s += "<= " + std::to_string(m.upper);
    else
      s += "in [" + std::to_string(m.lower) + ", " + std::to_string(m.upper) + "]";
  }
  return s;
}

SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt) {
  return with_root_solver<SolveResult>(rules, p, opt, [](auto& root) { return root.run(); });
}

TestResult solve_test(Rules rules, const Position& p, int beta, const SolveOptions& opt,
                      bool expect_failure) {
  return with_root_solver<TestResult>(rules, p, opt, [beta, expect_failure](auto& root) {
    return root.run_test(beta, expect_failure);
  });
}

int solve_guess(Rules rules, const Position& p, const SolveOptions& opt) {
  if (is_over(rules, p)) return final_margin(p);
  SolveOptions small = opt;  // the guess is the engine's: the solver's TT and memo stay unused
  small.tt = nullptr;
  small.tt_bytes = 64 << 10;
  small.memo_stones = 0;
  return with_root_solver<int>(rules, p, small, [](auto& root) { return root.guess_margin(); });
}

}  // namespace kalah
