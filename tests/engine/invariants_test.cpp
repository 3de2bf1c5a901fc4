// Invariants of move application on random play, notation round trips, and notation errors.
#include <gtest/gtest.h>

#include "tests/support/reference.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/move.hpp"

namespace kalah {
namespace {

// Total distance of the stones in pits to their owners' kalahs: pit i (0-based) of a side is
// m - i sowing steps from that side's kalah. RULES.md: a move that keeps the pit stones lowers it.
long potential(const Position& p) {
  long d = 0;
  for (int i = 0; i < p.m; ++i) d += long(p.m - i) * (p.own_pit(i) + p.opp_pit(i));
  return d;
}

struct Counts {
  long moves = 0, games = 0;
};

void random_games(Rules rules, int m, int k, int games, std::mt19937_64& rng, Counts& counts) {
  const int least_gain = with_rules(rules, [](auto r) { return decltype(r)::kLeastGain; });
  // The relay family (engine/rules/wetherell.hpp): no extra turns, a played pit may be sown again.
  const bool relays =
      with_rules(rules, []<class R>(R) { return std::is_base_of_v<RelayRules<R>, R>; });
  for (int g = 0; g < games; ++g) {
    Position p = start_position(m, k, rng() % 2 ? Side::kSouth : Side::kNorth);
    const int total = p.total_stones();
    ASSERT_EQ(total, 2 * m * k);
    int plies = 0;
    while (!is_over(rules, p)) {
      ASSERT_LT(++plies, 100000) << "game does not end";
      std::vector<int> legal;
      for (int pit = 1; pit <= m; ++pit)
        if (p.own_pit(pit - 1) > 0) legal.push_back(pit);
      ASSERT_FALSE(legal.empty()) << to_string(p);
      // Some move puts at least the rule set's least gain into the mover's kalah (the solver's
      // lower bound on every position's future margin rests on it).
      int most = 0;
      for (int pit : legal) {
        Position q = p;
        play_move(rules, q, pit);
        most = std::max(most, int(q.side_kalah(p.mover)) - int(p.own_kalah()));
      }
      ASSERT_GE(most, least_gain) << to_string(p);
      const int pit = legal[rng() % legal.size()];
      const Position before = p;
      const bool again = play_move(rules, p, pit);
      ++counts.moves;
      const std::string where = to_string(before) + " pit " + std::to_string(pit);
      ASSERT_EQ(p.total_stones(), total) << where;  // stones are conserved
      ASSERT_EQ(p.m, m);
      // Kalahs never lose stones; pits never gain in total.
      for (Side s : {Side::kSouth, Side::kNorth})
        ASSERT_GE(p.side_kalah(s), before.side_kalah(s)) << where;
      ASSERT_LE(p.pit_stones(), before.pit_stones()) << where;
      if (p.pit_stones() == before.pit_stones()) {
        ASSERT_LT(potential(p), potential(before)) << where;
      }
      // Relay rule sets give no extra turn; the mover field follows the turn.
      if (relays) {
        ASSERT_FALSE(again) << where;
      }
      ASSERT_EQ(p.mover, again ? before.mover : other(before.mover)) << where;
      // The played pit was emptied unless the sowing lapped back into it.
      if (before.own_pit(pit - 1) < 2 * m + 1 && !relays) {
        ASSERT_EQ(p.side_pit(before.mover, pit - 1), 0) << where;
      }
      // Notation round trip.
      ASSERT_EQ(parse_position(to_string(p)), p) << where;
    }
    // A finished game: the margin is the final kalah difference after sweeping the pits.
    const int south = p.side_kalah(Side::kSouth) +
                      (p.mover == Side::kSouth ? p.own_pit_stones() : p.opp_pit_stones());
    const int north = total - south;
    ASSERT_EQ(final_margin(p), p.mover == Side::kSouth ? south - north : north - south);
    if (rules == Rules::kWetherell) {
      ASSERT_EQ(p.own_pit_stones(), 0);
    }
    ++counts.games;
  }
}

class Invariants : public ::testing::TestWithParam<Rules> {};

TEST_P(Invariants, RandomPlayConservesStonesAndEnds) {
  const Rules rules = GetParam();
  std::mt19937_64 rng(20261122 + int(rules));
  Counts counts;
  for (int m = 1; m <= 12; ++m)
    for (int k : {1, 2, 3, 4, 6}) random_games(rules, m, k, 6, rng, counts);
  // Big sowings that lap the board several times: 480 stones on 12 pits, 130 on 1 pit.
  random_games(rules, 12, 20, 3, rng, counts);
  random_games(rules, 1, 65, 3, rng, counts);
  random_games(rules, 6, 40, 3, rng, counts);
  EXPECT_EQ(counts.games, 12 * 5 * 6 + 9);
  EXPECT_GT(counts.moves, 10000);
}

INSTANTIATE_TEST_SUITE_P(AllRules, Invariants, ::testing::ValuesIn(test::registered_rules()),
                         [](const auto& info) { return test::rules_test_name(info.param); });

TEST(Notation, RoundTripOfHandWrittenPositions) {
  for (const char* text :
       {"3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", "3,3,3,3,3,3,0/3,3,3,3,3,3,0 N", "0,7/0,0 N",
        "1,2,3,4,5,6,7,8,9,10,11,12,13/14,15,16,17,18,19,20,21,22,23,24,25,26 S",
        "0,0,0,0,0,0,65535/0,0,0,0,0,0,0 N"}) {
    const Position p = parse_position(text);
    EXPECT_EQ(to_string(p), text);
  }
  // The side to move's pits come first in cell order: N to move swaps the halves.
  const Position n = parse_position("1,2,3,9/4,5,6,8 N");
  EXPECT_EQ(n.mover, Side::kNorth);
  EXPECT_EQ(n.own_pit(0), 4);
  EXPECT_EQ(n.own_kalah(), 8);
  EXPECT_EQ(n.opp_pit(2), 3);
  EXPECT_EQ(n.opp_kalah(), 9);
  EXPECT_EQ(n.side_pit(Side::kSouth, 1), 2);
}

TEST(Notation, EveryKindOfMalformedPositionIsRejected) {
  const char* bad[] = {// missing field / separator
                       "", "S", "3,3,3,3,3,3,0/3,3,3,3,3,3,0", "3,3,3,3,3,3,0/3,3,3,3,3,3,0 ",
                       "3,3,3,3,3,3,0 3,3,3,3,3,3,0 S", "3,3,,3,3,3,0/3,3,3,3,3,3,0 S",
                       "3,3,3,3,3,3,0/3,3,3,3,3,3, S", ",3,3,3,3,3,0/3,3,3,3,3,3,0 S",
                       "3,3,3,3,3,3,0//3,3,3,3,3,3,0 S", "3,3,3,3,3,3,0/3,3,3,3,3,3,0/0 S",
                       // not a non-negative integer
                       "3,3,x,3,3,3,0/3,3,3,3,3,3,0 S", "3,3,3,3,3,3,0/3,3,3.5,3,3,3,0 S",
                       "3,3,3,3,3,3,0/3,3,3,3,3,3,0x S", "3,3,+3,3,3,3,0/3,3,3,3,3,3,0 S",
                       "3, 3,3,3,3,3,0/3,3,3,3,3,3,0 S",
                       // negative
                       "3,3,-3,3,3,3,0/3,3,3,3,3,3,0 S", "3,3,3,3,3,3,0/3,3,3,3,3,3,-1 S",
                       // sides of different lengths
                       "3,3,3,3,3,3,0/3,3,3,3,3,0 S", "3,3,3,0/3,3,3,3,0 N",
                       // m out of range: 0 pits, 13 pits
                       "0/0 S", "1,1,1,1,1,1,1,1,1,1,1,1,1,0/1,1,1,1,1,1,1,1,1,1,1,1,1,0 S",
                       // too many stones: one count, and the sum
                       "99999,0/0,0 S", "99999999999999999999999,0/0,0 S", "40000,0/30000,0 S",
                       // bad side letter
                       "3,3,3,3,3,3,0/3,3,3,3,3,3,0 X", "3,3,3,3,3,3,0/3,3,3,3,3,3,0 s",
                       "3,3,3,3,3,3,0/3,3,3,3,3,3,0 SN", "3,3,3,3,3,3,0/3,3,3,3,3,3,0  S"};
  for (const char* text : bad) {
    try {
      parse_position(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_FALSE(msg.empty()) << text;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "multi-line message for '" << text << "'";
    }
  }
}

TEST(Moves, IllegalMovesAreRejectedAndLeaveThePositionUnchanged) {
  struct Bad {
    Rules rules;
    const char* position;
    int pit;
  };
  const Bad bad[] = {
      {Rules::kWetherell, "3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", 0},
      {Rules::kWetherell, "3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", 7},
      {Rules::kWetherell, "3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", -1},
      {Rules::kWetherell, "0,3,3,3,3,3,0/3,3,3,3,3,3,0 S", 1},
      {Rules::kWetherell, "0,0,0,0,0,0,10/1,2,0,0,0,3,9 S", 1},  // over: S has no stones
      {Rules::kKalah, "1,0,0,0,0,0,10/0,0,0,0,0,0,9 S", 1},      // over: N has no stones
      {Rules::kKalahEmptyCapture, "0,0,0,0,0,0,10/1,0,0,0,0,0,9 N", 1},
  };
  for (const Bad& b : bad) {
    Position p = parse_position(b.position);
    const Position before = p;
    EXPECT_THROW(play_move(b.rules, p, b.pit), InputError) << b.position << " pit " << b.pit;
    EXPECT_EQ(p, before);
  }
}

}  // namespace
}  // namespace kalah
