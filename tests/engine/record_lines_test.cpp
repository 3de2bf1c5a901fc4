// for_each_record_line: the records of a text, one a line, without comments and blanks.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/record_lines.hpp"

namespace kalah {
namespace {

std::vector<std::pair<std::string, int>> records_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::pair<std::string, int>> got;
  for_each_record_line(in,
                       [&got](const std::string& r, int number) { got.emplace_back(r, number); });
  return got;
}

TEST(RecordLines, CommentsAndBlanksAreSkippedAndLinesKeepTheirNumbers) {
  const auto got = records_of(
      "# a header\n"
      "\n"
      "  1,2,3/4,5,6 S  \n"
      "\t\r\n"
      "1,1,1/1,1,1 N # the second\r\n"
      "   # indented comment\n"
      "<3,0,0,1,1,1,1,1,1>");
  const std::vector<std::pair<std::string, int>> want = {
      {"1,2,3/4,5,6 S", 3}, {"1,1,1/1,1,1 N", 5}, {"<3,0,0,1,1,1,1,1,1>", 7}};
  EXPECT_EQ(got, want);
}

TEST(RecordLines, ATextOfCommentsHoldsNoRecord) {
  EXPECT_TRUE(records_of("").empty());
  EXPECT_TRUE(records_of("#\n  \n# x # y\n").empty());
}

}  // namespace
}  // namespace kalah
