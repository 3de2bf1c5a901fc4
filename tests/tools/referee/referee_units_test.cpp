// The referee's parts without a server: rank correlation, the rules check, the games read by
// `kalah grade`, the positions drawn inside a table, and a move's grade.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "engine/move.hpp"
#include "tools/kgp/kgp_protocol.hpp"
#include "tools/referee/game_record.hpp"
#include "tools/referee/grading.hpp"
#include "tools/referee/position_source.hpp"
#include "tools/referee/rank_correlation.hpp"
#include "tools/referee/rule_check.hpp"

namespace kalah::referee {
namespace {

// Kendall's tau-b by its definition, over every pair of pairs.
double tau_b_by_pairs(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, tx = 0, ty = 0, n0 = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j) {
      ++n0;
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0) ++tx;
      if (dy == 0) ++ty;
      if (dx * dy > 0) ++concordant;
      if (dx * dy < 0) ++discordant;
    }
  return (concordant - discordant) / std::sqrt((n0 - tx) * (n0 - ty));
}

TEST(RankCorrelation, KnownSampleGivesTheTextbookValues) {
  const std::vector<double> x{1, 2, 3, 4, 5}, y{2, 1, 4, 3, 5};
  EXPECT_NEAR(*spearman_rho(x, y), 0.8, 1e-12);   // 1 - 6 * 4 / (5 * 24)
  EXPECT_NEAR(*kendall_tau_b(x, y), 0.6, 1e-12);  // (8 - 2) / 10
  // Ties share their mean rank: x's ranks 1, 2.5, 2.5, 4 against 1..4.
  EXPECT_NEAR(*spearman_rho({1, 2, 2, 3}, {1, 2, 3, 4}), 4.5 / std::sqrt(22.5), 1e-12);
  const std::vector<double> reversed{5, 4, 3, 2, 1};
  EXPECT_NEAR(*spearman_rho(x, reversed), -1, 1e-12);
  EXPECT_NEAR(*kendall_tau_b(x, reversed), -1, 1e-12);
}

TEST(RankCorrelation, TauBEqualsItsDefinitionOnSamplesWithTies) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 50; ++round) {
    const std::size_t n = 2 + rng() % 60;
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = double(rng() % 7);
      y[i] = x[i] * (round % 3 == 0 ? -1 : 1) + double(rng() % 5);
    }
    const std::optional<double> tau = kendall_tau_b(x, y);
    if (!tau) continue;  // a constant side
    EXPECT_NEAR(*tau, tau_b_by_pairs(x, y), 1e-12) << "round " << round;
  }
}

TEST(RankCorrelation, UndefinedForAConstantSideOrFewerThanTwoPairs) {
  EXPECT_FALSE(spearman_rho({1, 2, 3}, {4, 4, 4}));
  EXPECT_FALSE(kendall_tau_b({1, 2, 3}, {4, 4, 4}));
  EXPECT_FALSE(kendall_tau_b({1}, {2}));
  EXPECT_THROW(spearman_rho({1, 2}, {1}), std::invalid_argument);
}

TEST(RuleCheck, TheBoardAfterTheMoveAndItsRepeatFlag) {
  const Position start = start_position(6, 4);
  // Pit 3 of four stones ends in South's kalah: another move.
  const Position after = kgp::parse_board("<6,1,0,4,4,0,5,5,5,4,4,4,4,4,4>");
  EXPECT_TRUE(check_solution(start, 3, after, true).ok);
  const RuleCheck no_repeat = check_solution(start, 3, after, false);
  EXPECT_FALSE(no_repeat.ok);
  EXPECT_NE(no_repeat.why.find("another move"), std::string::npos) << no_repeat.why;
  const RuleCheck wrong =
      check_solution(start, 3, kgp::parse_board("<6,0,0,4,4,0,5,5,5,5,4,4,4,4,4>"), true);
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.why.find("<6,1,0,4,4,0,5,5,5,4,4,4,4,4,4>"), std::string::npos) << wrong.why;
}

TEST(RuleCheck, AMoveThatEndsTheGameAcceptsTheBoardWithOrWithoutTheSweep) {
  // South's last stone leaves its pits empty: the game ends; North keeps 3 stones in pits.
  const Position p = parse_position("0,0,0,0,0,1,10/1,2,0,0,0,0,10 S");
  const Position unswept = kgp::parse_board("<6,11,10,0,0,0,0,0,0,1,2,0,0,0,0>");
  const Position swept = kgp::parse_board("<6,11,13,0,0,0,0,0,0,0,0,0,0,0,0>");
  EXPECT_TRUE(check_solution(p, 6, unswept, true).ok);
  EXPECT_TRUE(check_solution(p, 6, swept, false).ok);  // no next turn: the flag is not checked
  EXPECT_FALSE(
      check_solution(p, 6, kgp::parse_board("<6,11,12,0,0,0,0,0,0,0,1,0,0,0,0>"), true).ok);
}

TEST(ReadGames, MovesAndPositionsGiveTheSameGame) {
  Position p = start_position(6, 3);
  std::string positions = to_string(p) + "\n";
  const std::vector<int> pits{3, 1, 6, 2};
  for (int pit : pits) {
    play_move(Rules::kKalah, p, pit);
    positions += to_string(p) + "\n";
  }
  std::istringstream as_moves("# a game\n6x3 3 1 6 2\n"), as_positions(positions);
  const std::vector<GameRecord> a = read_games(as_moves, Rules::kKalah);
  const std::vector<GameRecord> b = read_games(as_positions, Rules::kKalah);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].line, 2);
  EXPECT_EQ(a[0].pits, pits);
  EXPECT_EQ(b[0].pits, pits);
  EXPECT_EQ(a[0].positions, b[0].positions);
}

TEST(BoardSize, MxKIsParsedCheckedOrNotOne) {
  EXPECT_EQ(parse_board_size("6x4"), (std::pair{6, 4}));
  EXPECT_EQ(parse_board_size("12x1"), (std::pair{12, 1}));
  for (const char* other : {"6", "6x", "x4", "6x4z", "6*4", "a6x4", ""})
    EXPECT_FALSE(parse_board_size(other)) << other;
  for (const char* bad : {"0x3", "17x1", "6x0", "6x-1", "6x6000"})
    EXPECT_THROW(parse_board_size(bad), InputError) << bad;
}

TEST(ReadGames, BadGamesAreErrorsNamingTheLine) {
  const auto error = [](const std::string& text) {
    std::istringstream in(text);
    try {
      read_games(in, Rules::kKalah);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("\n6x3 3 3 3\n").rfind("line 2: ", 0), 0u) << error("\n6x3 3 3 3\n");
  EXPECT_EQ(error("6x3 3 x\n").rfind("line 1: 'x' is no pit", 0), 0u);
  EXPECT_EQ(error("3,3,3,3,3,3,0/3,3,3,3,3,3,0 S\n3,3,3,3,3,3,0/3,3,3,3,3,3,0 N\n")
                .rfind("line 2: no move leads", 0),
            0u);
  EXPECT_EQ(error("1,2,3 S\n").rfind("line 1: ", 0), 0u);
}

TEST(TablePositions, InsideTheRangeNotOverAndTheSameForTheSameSeed) {
  SourceOptions o;
  o.m = 6;
  o.count = 300;
  o.lo = 3;  // 2 is the least: one stone leaves a side empty
  o.hi = 9;
  o.stones = 4;
  o.seed = 11;
  const std::vector<Position> a = table_positions(o);
  ASSERT_EQ(a.size(), 300u);
  std::set<int> seen;
  for (const Position& p : a) {
    EXPECT_GE(p.pit_stones(), 3);
    EXPECT_LE(p.pit_stones(), 9);
    seen.insert(p.pit_stones());
    EXPECT_FALSE(is_over(Rules::kKalah, p)) << to_string(p);
    EXPECT_EQ(p.total_stones(), 48) << to_string(p);
    EXPECT_FALSE(is_decided(p)) << to_string(p);
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_EQ(table_positions(o), a);
  o.seed = 12;
  EXPECT_NE(table_positions(o), a);
}

TEST(MoveGrade, VerdictsMarginsAndOutcomesFromTheAnswer) {
  const Position p = parse_position("1,0,2,0,0,1,20/0,1,0,2,1,0,20 S");
  QueryAnswer a;
  a.value = {2, 2};
  a.moves = {{1, {2, 2}, false, true}, {3, {-1, -1}, false, false}, {6, {0, 3}, true, false}};
  const MoveGrade best = Grader::grade(p, 1, a), bad = Grader::grade(p, 3, a);
  EXPECT_TRUE(best.is_best());
  EXPECT_EQ(best.best_pits, std::vector<int>{1});
  EXPECT_FALSE(bad.is_best());
  EXPECT_EQ(bad.given_away(), 3);
  EXPECT_TRUE(bad.changes_outcome());
  const MoveGrade bounded = Grader::grade(p, 6, a);
  EXPECT_FALSE(bounded.proven);
  EXPECT_FALSE(bounded.changes_outcome());
  EXPECT_EQ(Grader::grade(p, 2, a).verdict, Verdict::kIllegal);
  EXPECT_EQ(Grader::grade(p, 0, a).verdict, Verdict::kIllegal);  // pit 0 is sent, and illegal
  EXPECT_EQ(Grader::grade(p, std::nullopt, a).verdict, Verdict::kNoMove);
}

}  // namespace
}  // namespace kalah::referee
