// Every entry of complete small tables equals a plain exhaustive minimax, for all three rule sets.
#include <gtest/gtest.h>

#include <map>

#include "build.hpp"
#include "generate.hpp"
#include "move.hpp"

namespace kalah {
namespace {

// Plain exhaustive negamax of the future margin (kalahs start at zero), memoised by position text.
int naive_future(Rules rules, const Position& p, std::map<std::string, int>& memo) {
  const std::string key = to_string(p);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  int best;
  if (is_over(rules, p)) {
    best = final_margin(p);
  } else {
    best = -1000;
    for (int pit = 1; pit <= p.m; ++pit) {
      if (p.own_pit(pit - 1) == 0) continue;
      Position c = p;
      const bool again = play_move(rules, c, pit);
      best = std::max(best, again ? naive_future(rules, c, memo) : -naive_future(rules, c, memo));
    }
  }
  memo[key] = best;
  return best;
}

struct Case {
  Rules rules;
  int m;
  int max_stones;
};

class GenerateVsMinimax : public ::testing::TestWithParam<Case> {};

TEST_P(GenerateVsMinimax, EveryEntryMatches) {
  const Case c = GetParam();
  const LevelIndex index(c.m, c.max_stones);
  LevelTables levels;
  for (int n = 0; n <= c.max_stones; ++n) solve_level(c.rules, index, levels, n, 2);
  std::map<std::string, int> memo;
  std::uint64_t checked = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    std::vector<Stones> x(2 * c.m);
    for (std::uint64_t r = 0; r < index.size(n); ++r) {
      index.unrank(r, n, x.data());
      Position p;
      p.m = c.m;
      for (int i = 0; i < c.m; ++i) {
        p.own_pit(i) = x[i];
        p.opp_pit(i) = x[c.m + i];
      }
      const int want = naive_future(c.rules, p, memo);
      ASSERT_EQ(levels[n][r], want) << rules_name(c.rules) << " " << to_string(p);
      ++checked;
    }
  }
  EXPECT_EQ(checked, build_memory_bytes(c.m, c.max_stones));
}

INSTANTIATE_TEST_SUITE_P(
    SmallBoards, GenerateVsMinimax,
    ::testing::Values(Case{Rules::kWetherell, 1, 12}, Case{Rules::kWetherell, 2, 10},
                      Case{Rules::kWetherell, 3, 8}, Case{Rules::kWetherell, 4, 6},
                      Case{Rules::kKalah, 1, 12}, Case{Rules::kKalah, 2, 10},
                      Case{Rules::kKalah, 3, 8}, Case{Rules::kKalah, 4, 6},
                      Case{Rules::kKalahEmptyCapture, 1, 12},
                      Case{Rules::kKalahEmptyCapture, 2, 10}, Case{Rules::kKalahEmptyCapture, 3, 8},
                      Case{Rules::kKalahEmptyCapture, 4, 6}),
    [](const auto& info) {
      std::string n(rules_name(info.param.rules));
      std::erase(n, '-');
      return n + "_m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.max_stones);
    });

TEST(Generate, MemoryIsTheBinomial) {
  EXPECT_EQ(build_memory_bytes(6, 24), 1251677700u);  // C(36, 12)
  EXPECT_EQ(build_memory_bytes(6, 20), 225792840u);   // C(32, 12)
}

}  // namespace
}  // namespace kalah
