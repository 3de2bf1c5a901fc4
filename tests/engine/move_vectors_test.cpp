// Every line of the move vectors (tests/data) and every worked example of RULES.md.
#include <gtest/gtest.h>

#include "engine/move.hpp"
#include "tests/support/vectors.hpp"

namespace kalah {
namespace {

// extra_turns: whether the rule set gives the mover another move (RULES.md): the file must then
// hold such moves, else none.
void check_move_file(Rules rules, const std::string& file, bool extra_turns) {
  const auto rows = test::read_vector_file(file);
  int again = 0, passed = 0;  // moves after which the mover moves again / the turn passes
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 5u) << "malformed vector line in " << file;
    Position p = parse_position(row[0] + " " + row[1]);
    ASSERT_EQ(to_string(p), row[0] + " " + row[1]);
    play_move(rules, p, std::stoi(row[2]));
    EXPECT_EQ(to_string(p), row[3] + " " + row[4])
        << file << ": " << row[0] << " " << row[1] << " pit " << row[2];
    (row[4] == row[1] ? again : passed)++;
  }
  if (extra_turns) {
    EXPECT_GT(again, 0) << file << " has no move that gives another move";
  } else {
    EXPECT_EQ(again, 0) << file << " has moves that give another move";
  }
  EXPECT_GT(passed, 0) << file << " has no move that passes the turn";
}

TEST(MoveVectors, Wetherell) {
  check_move_file(Rules::kWetherell, "moves-wetherell.txt", false);
}
TEST(MoveVectors, Kalah) {
  check_move_file(Rules::kKalah, "moves-kalah.txt", true);
}
TEST(MoveVectors, KalahEmptyCapture) {
  check_move_file(Rules::kKalahEmptyCapture, "moves-kalah-empty-capture.txt", true);
}

struct Worked {
  const char* before;
  int pit;
  const char* after;
};

TEST(RulesExamples, WetherellWorkedExamples) {
  const Worked examples[] = {
      {"3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", 1, "0,4,4,4,3,3,0/3,3,3,3,3,3,0 N"},
      {"3,3,3,3,3,3,0/3,3,3,3,3,3,0 S", 5, "3,3,3,3,0,4,1/4,3,3,3,3,3,0 N"},
      {"0,1,0,2,0,13,5/4,1,4,4,1,1,3 S", 6, "1,2,1,3,1,1,6/5,2,5,5,2,2,3 N"},
      {"1,0,2,1,0,10,2/1,5,4,5,1,4,4 S", 6, "2,1,0,2,1,1,3/2,6,5,6,2,5,4 N"},
      {"2,0,1,1,0,0,10/3,3,3,3,3,3,7 S", 1, "0,1,2,1,0,0,10/3,3,3,3,3,3,7 N"},
      {"0,0,0,0,1,5,10/1,2,1,2,5,1,8 S", 6, "0,0,0,0,1,0,21/0,0,0,0,5,1,8 N"},
      {"0,0,0,0,1,5,10/1,3,1,2,5,1,8 S", 6, "0,0,0,0,1,0,16/2,4,0,0,5,1,8 N"},
      {"6,0,0,0,0,8,0/0,3,3,3,3,3,0 S", 6, "0,1,1,1,1,1,4/0,4,4,4,4,4,0 N"},
      {"0,0,0,0,0,26,0/0,0,0,0,0,0,0 S", 6, "2,2,2,2,2,0,6/0,2,2,2,2,2,0 N"},
      {"3,3,3,3,3,3,0/3,3,3,3,3,3,0 N", 4, "3,3,3,3,3,3,0/3,3,3,0,4,4,1 S"},
  };
  for (const auto& e : examples) {
    Position p = parse_position(e.before);
    play_move(Rules::kWetherell, p, e.pit);
    EXPECT_EQ(to_string(p), e.after) << e.before << " pit " << e.pit;
  }
}

TEST(RulesExamples, OverPositionHasFinalMargin) {
  const Position p = parse_position("0,0,0,0,0,0,10/1,2,0,0,0,3,9 S");
  EXPECT_TRUE(is_over(Rules::kWetherell, p));
  EXPECT_EQ(final_margin(p), -5);
}

}  // namespace
}  // namespace kalah
