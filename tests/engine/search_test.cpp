// The alpha-beta engine returns plain minimax values at the same depth, and exact values when it
// can.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "engine/search.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

class SearchVsMinimax : public ::testing::TestWithParam<Rules> {};

TEST_P(SearchVsMinimax, SameValueAndBestMovesAtSameDepth) {
  const Rules rules = GetParam();
  std::mt19937_64 rng(12345);
  SearchOptions opt;
  opt.randomize = false;
  opt.tt_bytes = 1 << 20;
  Searcher searcher(rules, opt);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const int m = 3 + int(rng() % 4);
    const Position p = test::random_position(rules, m, 2 + int(rng() % 3), int(rng() % 12), rng);
    if (is_over(rules, p)) continue;
    const int depth = 1 + int(rng() % 5);
    if (i % 3 == 0) searcher.clear();  // also exercise a TT carried over from other positions
    const SearchResult r = searcher.search(p, {depth, 0, 0});
    ASSERT_EQ(r.value, test::reference_minimax(rules, p, depth))
        << to_string(p) << " depth " << depth;
    // Every reported best move has the best value; every other move is worse.
    for (int pit = 1; pit <= p.m; ++pit) {
      if (p.own_pit(pit - 1) == 0) continue;
      Position c = p;
      const bool again = play_move(rules, c, pit);
      const int v = again ? test::reference_minimax(rules, c, depth - 1)
                          : -test::reference_minimax(rules, c, depth - 1);
      const bool listed =
          std::find(r.best_pits.begin(), r.best_pits.end(), pit) != r.best_pits.end();
      EXPECT_EQ(listed, v == r.value) << to_string(p) << " pit " << pit;
    }
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST_P(SearchVsMinimax, ExactFlagMeansExactMargin) {
  const Rules rules = GetParam();
  std::mt19937_64 rng(777);
  SearchOptions opt;
  opt.randomize = false;
  Searcher searcher(rules, opt);
  int exact_seen = 0;
  for (int i = 0; i < 200; ++i) {
    const Position p = test::random_position(rules, 2 + int(rng() % 2), 2, int(rng() % 6), rng);
    const SearchResult r = searcher.search(p, {30, 0, 0});
    if (!r.exact) continue;
    ++exact_seen;
    ASSERT_EQ(r.value, test::reference_minimax(rules, p, 1 << 20)) << to_string(p);
  }
  EXPECT_GT(exact_seen, 150);
}

INSTANTIATE_TEST_SUITE_P(AllRules, SearchVsMinimax, ::testing::ValuesIn(test::registered_rules()),
                         [](const auto& info) { return test::rules_test_name(info.param); });

TEST(Search, BudgetsStopDeepeningButKeepACompletedIteration) {
  SearchOptions opt;
  opt.randomize = false;
  Searcher s(Rules::kWetherell, opt);
  const Position p = start_position(6, 6);
  const SearchResult r = s.search(p, {60, 20000, 0});
  EXPECT_TRUE(r.budget_ran_out);
  EXPECT_GE(r.depth, 1);
  EXPECT_LT(r.depth, 60);
  EXPECT_GE(r.pit, 1);
  EXPECT_FALSE(r.exact);
}

// A cancel flag stops deepening like a budget: set before the search, only depth 1 is finished;
// set by another thread during a search without budget, the search returns a completed iteration.
TEST(Search, CancelFlagStopsDeepening) {
  SearchOptions opt;
  opt.randomize = false;
  Searcher s(Rules::kKalah, opt);
  const Position p = start_position(6, 6);
  std::atomic<bool> cancel{true};
  SearchLimits limits{60, 0, 0};
  limits.cancel = &cancel;
  SearchResult r = s.search(p, limits);
  EXPECT_TRUE(r.budget_ran_out);
  EXPECT_EQ(r.depth, 1);
  EXPECT_GE(r.pit, 1);

  s.clear();
  cancel = false;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  r = s.search(p, limits);
  canceller.join();
  EXPECT_TRUE(r.budget_ran_out);
  EXPECT_GE(r.depth, 1);
  EXPECT_LT(r.depth, 60);
  EXPECT_GE(r.pit, 1);
  EXPECT_FALSE(r.exact);
}

// Equal seeds choose alike, every choice is among the tied best moves, and the seed decides which:
// over 32 seeds the choice is not always the same (it would be if the seed were ignored).
TEST(Search, SeededRandomChoiceIsReproducibleAndAmongTies) {
  const Position p = start_position(6, 3);
  std::set<int> chosen;
  std::size_t ties = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    SearchOptions opt;
    opt.seed = seed;
    Searcher a(Rules::kWetherell, opt), b(Rules::kWetherell, opt);
    const SearchResult ra = a.search(p, {4, 0, 0});
    const SearchResult rb = b.search(p, {4, 0, 0});
    EXPECT_EQ(ra.pit, rb.pit);
    EXPECT_NE(std::find(ra.best_pits.begin(), ra.best_pits.end(), ra.pit), ra.best_pits.end());
    chosen.insert(ra.pit);
    ties = ra.best_pits.size();
  }
  ASSERT_GE(ties, 2u) << "the position must have tied best moves at this depth";
  EXPECT_GT(chosen.size(), 1u);
}

}  // namespace
}  // namespace kalah
