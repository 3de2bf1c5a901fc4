// Every entry of complete small tables equals a plain exhaustive minimax, for all three rule sets.
#include <gtest/gtest.h>

#include <map>

#include "build.hpp"
#include "generate.hpp"
#include "move.hpp"
#include "reference.hpp"

namespace kalah {
namespace {

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
  test::ReferenceSolver reference(c.rules);
  std::uint64_t checked = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    for (std::uint64_t r = 0; r < index.size(n); ++r) {
      const Position p = index.position(r, n);
      const int want = reference.margin(p);
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
      return test::rules_test_name(info.param.rules) + "_m" + std::to_string(info.param.m) + "_n" +
             std::to_string(info.param.max_stones);
    });

TEST(Generate, MemoryIsTheBinomial) {
  EXPECT_EQ(build_memory_bytes(6, 24), 1251677700u);  // C(36, 12)
  EXPECT_EQ(build_memory_bytes(6, 20), 225792840u);   // C(32, 12)
}

}  // namespace
}  // namespace kalah
