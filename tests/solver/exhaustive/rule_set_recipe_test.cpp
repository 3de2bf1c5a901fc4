// docs/CONTRIBUTING.md's "add a rule set", followed for a test-only rule set: the generator, the
// solver and the engine all play it and agree with a plain minimax over its policy.
#include <gtest/gtest.h>

#include <vector>

#include "engine/move.hpp"
#include "engine/search_impl.hpp"
#include "solver/exhaustive/root_solver.hpp"
#include "solver/retrograde/level_kernel.hpp"
#include "tests/support/reference.hpp"
#include "tests/support/wetherell_twos.hpp"

namespace kalah {
namespace {

using test::WetherellTwos;

// The best pits (1-based, ascending) of p by the reference's exact margins.
std::vector<int> reference_best(test::PolicyReferenceMinimax<WetherellTwos>& ref,
                                const Position& p) {
  std::vector<int> best;
  int top = -1000000;
  for (int pit = 0; pit < p.m; ++pit) {
    if (p.own_pit(pit) == 0) continue;
    Position c = p;
    const bool again = play_move<WetherellTwos>(c, pit);
    const int v = again ? ref.margin(c) : -ref.margin(c);
    if (v > top) best.clear(), top = v;
    if (v == top) best.push_back(pit + 1);
  }
  return best;
}

TEST(RuleSetRecipe, ThePolicyCapturesTwosOnly) {
  // South's last stone makes 3 in North's pit 1: the etude captures it, this rule set does not.
  const Position p = parse_position("0,0,2,0/2,0,0,0 S");
  Position etude = p, twos = p;
  play_move<Wetherell>(etude, 2);
  play_move<WetherellTwos>(twos, 2);
  EXPECT_EQ(to_string(etude), "0,0,0,4/0,0,0,0 N");
  EXPECT_EQ(to_string(twos), "0,0,0,1/3,0,0,0 N");
}

// Every entry of complete small tables equals the minimax, and some differ from the etude's.
template <int M>
void check_generator(int max_stones) {
  const LevelIndex index(M, max_stones);
  LevelTables twos, etude;
  test::PolicyReferenceMinimax<WetherellTwos> ref;
  int differ = 0;
  for (int n = 0; n <= max_stones; ++n) {
    twos.open(n, index.size(n), kUnknownValue);
    etude.open(n, index.size(n), kUnknownValue);
    LevelKernel<WetherellTwos, M>(index, twos).compute_range(n, 0, index.size(n));
    LevelKernel<Wetherell, M>(index, etude).compute_range(n, 0, index.size(n));
    twos.pack(n);  // the levels above read them packed
    etude.pack(n);
    for (std::uint64_t r = 0; r < index.size(n); ++r) {
      const Position p = index.position(r, n);
      ASSERT_EQ(twos.level(n).future(r), ref.margin(p)) << to_string(p);
      differ += twos.level(n).future(r) != etude.level(n).future(r);
    }
  }
  EXPECT_GT(differ, 0);
}

TEST(RuleSetRecipe, GeneratorAgreesWithMinimax) {
  check_generator<2>(10);
  check_generator<3>(8);
  check_generator<4>(6);
}

// The exhaustive solver on board B: margin, best moves and a PV that ends at the margin.
template <class B>
void check_solver(const Position& p, test::PolicyReferenceMinimax<WetherellTwos>& ref) {
  SolveOptions opt;
  opt.tt_bytes = 1 << 16;
  const SolveResult r = solve_detail::solve_on<B>(p, opt);
  ASSERT_TRUE(r.complete) << to_string(p);
  EXPECT_EQ(r.margin, ref.margin(p)) << to_string(p);
  EXPECT_EQ(r.best_moves, reference_best(ref, p)) << to_string(p);
  Position end = p;
  int sign = 1;
  for (int pit : r.pv)
    if (!play_move<WetherellTwos>(end, pit - 1)) sign = -sign;
  ASSERT_TRUE(is_over<WetherellTwos>(end)) << to_string(p);
  EXPECT_EQ(sign * final_margin(end), r.margin) << to_string(p);
}

TEST(RuleSetRecipe, SolverAgreesWithMinimax) {
  test::PolicyReferenceMinimax<WetherellTwos> ref;
  for (const auto& [m, k] : {std::pair{3, 2}, {3, 3}, {4, 2}}) {
    const Position p = start_position(m, k);
    check_solver<solve_detail::SolveBoard<WetherellTwos, ByteArrayBoard<>>>(p, ref);
    check_solver<solve_detail::SolveBoard<WetherellTwos, WideBoard>>(p, ref);
    if (m == 4) check_solver<solve_detail::SolveBoard<WetherellTwos, RegisterBoard<4>>>(p, ref);
  }
}

TEST(RuleSetRecipe, EngineAgreesWithMinimax) {
  test::PolicyReferenceMinimax<WetherellTwos> ref;
  SearchOptions opt;
  opt.tt_bytes = 1 << 20;
  opt.randomize = false;
  Searcher engine = Searcher::for_rules<WetherellTwos>(opt);
  SearchLimits limits;
  limits.depth = 60;
  for (const auto& [m, k] : {std::pair{3, 2}, {3, 3}, {4, 2}}) {
    const Position p = start_position(m, k);
    const SearchResult r = engine.search(p, limits);
    ASSERT_TRUE(r.exact) << to_string(p);
    EXPECT_EQ(r.value, ref.margin(p)) << to_string(p);
    EXPECT_EQ(r.best_pits, reference_best(ref, p)) << to_string(p);
  }
}

}  // namespace
}  // namespace kalah
