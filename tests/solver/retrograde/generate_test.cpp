// Every entry of complete small tables equals a plain exhaustive minimax, for all three rule sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/move.hpp"
#include "solver/retrograde/build.hpp"
#include "solver/retrograde/generate.hpp"
#include "solver/retrograde/level_kernel.hpp"
#include "tests/support/reference.hpp"

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
  for (int n = 0; n <= c.max_stones; ++n) generate_level(c.rules, index, levels, n, 2);
  test::ReferenceMinimax reference(c.rules);
  std::uint64_t checked = 0;
  for (int n = 0; n <= c.max_stones; ++n) {
    for (std::uint64_t r = 0; r < index.size(n); ++r) {
      const Position p = index.position(r, n);
      const int want = reference.margin(p);
      ASSERT_EQ(levels.level(n).future(r), want) << rules_name(c.rules) << " " << to_string(p);
      ++checked;
    }
  }
  EXPECT_EQ(checked, table_entries(c.m, c.max_stones));
}

// Every registered rule set on boards of 1..4 pits, each built through max_stones.
std::vector<Case> small_board_cases() {
  std::vector<Case> cases;
  for (Rules rules : test::registered_rules())
    for (const auto& [m, max_stones] :
         {std::pair(1, 12), std::pair(2, 10), std::pair(3, 8), std::pair(4, 6)})
      cases.push_back(Case{rules, m, max_stones});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(SmallBoards, GenerateVsMinimax, ::testing::ValuesIn(small_board_cases()),
                         [](const auto& info) {
                           return test::rules_test_name(info.param.rules) + "_m" +
                                  std::to_string(info.param.m) + "_n" +
                                  std::to_string(info.param.max_stones);
                         });

// The distributed build solves a level in increasing potential (LevelMoves::potential): every
// move that keeps all stones in the pits must lower it, on every board size and rule set.
TEST(LevelMoves, SameLevelMovesLowerThePotential) {
  for (Rules rules : test::registered_rules()) {
    with_rules(rules, [&](auto r) {
      with_pits(
          4,
          [&](auto pits) {
            constexpr int M = decltype(pits)::value;
            using Moves = LevelMoves<decltype(r), M>;
            const LevelIndex index(M, 10);
            const Moves moves(index);
            std::uint64_t same_level = 0;
            for (int n = 0; n <= 10; ++n) {
              Stones x[2 * M];
              index.unrank(0, n, x);
              do {
                const auto base = Moves::board_of(x);
                int over;
                if (Moves::over(base, &over)) continue;
                typename Moves::Ring child;
                for (unsigned p = Moves::movable(base); p != 0; p &= p - 1) {
                  const auto played = Moves::play(base, __builtin_ctz(p), n, child);
                  if (played.child_n != n) continue;
                  ++same_level;
                  Stones y[2 * M];
                  for (int j = 0; j < M; ++j) {
                    y[j] = Stones(child.cell(j));
                    y[M + j] = Stones(child.cell(M + 1 + j));
                  }
                  ASSERT_LT(Moves::potential(y), Moves::potential(x))
                      << rules_name(rules) << " " << to_string(index.position(index.rank(x, n), n));
                  ASSERT_EQ(moves.rank(child, n), index.rank(y, n));
                }
              } while (index.next(x));
            }
            EXPECT_GT(same_level, 1000u) << rules_name(rules);
          },
          std::integer_sequence<int, 4>{});
    });
  }
}

// Levels read packed by the levels above (LevelTables' packing) give every entry the value they
// get read in bytes, and take less memory.
TEST(Generate, PackedLevelsGiveTheSameValuesAsBytes) {
  for (Rules rules : test::registered_rules()) {
    const int m = 4, top = 12;
    const LevelIndex index(m, top);
    LevelTables packed(0, true), bytes(0, false);
    for (int n = 0; n <= top; ++n) {
      generate_level(rules, index, packed, n, 2);
      generate_level(rules, index, bytes, n, 2);
      ASSERT_TRUE(packed.level(n).packed);
      ASSERT_FALSE(bytes.level(n).packed);
      for (std::uint64_t r = 0; r < index.size(n); ++r)
        ASSERT_EQ(packed.level(n).future(r), bytes.level(n).future(r))
            << rules_name(rules) << " " << to_string(index.position(r, n));
    }
    EXPECT_LT(packed.memory_bytes(), bytes.memory_bytes() * 3 / 4);
  }
}

// A level opened by several threads holds the fill in every byte, also where it replaces a level
// opened before with another fill (sizes around the one-thread cut-off and unaligned ends).
TEST(Generate, AnOpenLevelIsFilledOnAnyThreadCount) {
  LevelTables levels(1, false);
  for (int threads : {1, 2, 3, 0}) {
    for (std::uint64_t entries : {std::uint64_t(1), std::uint64_t(4) << 20,
                                  (std::uint64_t(4) << 20) + 1, std::uint64_t(21'000'003)}) {
      for (std::int8_t fill : {std::int8_t(0), kUnknownValue}) {
        const std::span<std::int8_t> level = levels.open(0, entries, fill, threads);
        ASSERT_EQ(level.size(), entries);
        const auto other =
            std::find_if(level.begin(), level.end(), [fill](std::int8_t v) { return v != fill; });
        ASSERT_EQ(other, level.end())
            << threads << " threads, " << entries << " entries, at " << (other - level.begin());
      }
    }
  }
}

// A level packed in place by several threads (in rounds whose words land only on values already
// read) reads back every value a one-thread packing does, for sizes from one word to several
// rounds with a partial last word; a value no solve gives is refused from any thread.
TEST(Generate, ALevelPackedOnAnyThreadCountReadsBackItsValues) {
  const int n = 21;
  std::mt19937_64 rng(46);
  for (std::uint64_t entries : {std::uint64_t(5), std::uint64_t(12) << 16, std::uint64_t(3'000'007),
                                std::uint64_t(9'999'991)}) {
    std::vector<std::int8_t> values(entries);
    for (std::int8_t& v : values) v = std::int8_t(2 * int(rng() % (n + 1)) - n);
    for (int threads : {1, 2, 3, 0}) {
      LevelTables levels(n + 1, true);
      const std::span<std::int8_t> level = levels.open(n, entries, 0, threads);
      std::copy(values.begin(), values.end(), level.begin());
      levels.pack(n, threads);
      ASSERT_TRUE(levels.level(n).packed);
      for (std::uint64_t r = 0; r < entries; ++r)
        ASSERT_EQ(levels.level(n).future(r), values[r])
            << threads << " threads, " << entries << " entries, rank " << r;
    }
  }
  for (int threads : {1, 2}) {
    LevelTables levels(n + 1, true);
    const std::span<std::int8_t> level = levels.open(n, 3'000'007, 1, threads);
    level[2'900'000] = 2;  // not of n's parity
    EXPECT_THROW(levels.pack(n, threads), std::logic_error) << threads << " threads";
  }
}

TEST(Generate, EntriesAreTheBinomial) {
  EXPECT_EQ(table_entries(6, 24), 1251677700u);  // C(36, 12)
  EXPECT_EQ(table_entries(6, 20), 225792840u);   // C(32, 12)
}

}  // namespace
}  // namespace kalah
