// `kalah play --exact`: perfect play chosen by the solver, every move valued, ending as proven.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_run.hpp"

namespace kalah::test {
namespace {

// The values "[exact V for X, best P...;" of the engine's move lines, in order.
std::vector<std::pair<char, int>> exact_values(const std::string& out) {
  std::vector<std::pair<char, int>> v;
  const std::string open = "[exact ";
  for (std::size_t at = 0; (at = out.find(open, at)) != std::string::npos;) {
    at += open.size();
    char* end = nullptr;
    const long value = std::strtol(out.c_str() + at, &end, 10);
    const std::size_t after = std::size_t(end - out.c_str());
    const std::string best = out.substr(after, 13);  // " for X, best "
    if (end == out.c_str() + at || best.size() < 13 || best.compare(0, 5, " for ") != 0 ||
        (best[5] != 'S' && best[5] != 'N') || best.compare(6, 7, ", best ") != 0)
      continue;
    std::size_t k = after + 13;
    while (k < out.size() && (std::isdigit(static_cast<unsigned char>(out[k])) || out[k] == ' '))
      ++k;
    if (k == after + 13 || k >= out.size() || out[k] != ';') continue;
    v.emplace_back(best[5], int(value));
  }
  return v;
}

// The solver's margin of a start position, from `kalah solve --json`.
int solved_margin(const std::string& rules, int pits, int stones) {
  const CliResult r =
      run_cli("KALAH solve --no-db --json --threads 1 --rules " + rules + " --pits " +
              std::to_string(pits) + " --stones " + std::to_string(stones));
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out).at("margin").get<int>();
}

TEST(PlayExact, EverySelfPlayedMoveIsValuedAndTheGameEndsAsProven) {
  for (const std::string rules : {"wetherell", "kalah", "kalah-empty-capture"}) {
    const CliResult r = run_cli(
        "KALAH play --self --exact --no-random --threads 1 --pits 4 "
        "--stones 3 --rules " +
        rules);
    ASSERT_EQ(r.status, 0) << rules << "\n" << r.out << r.err;
    const auto values = exact_values(r.out);
    ASSERT_FALSE(values.empty()) << r.out;
    // Every engine move carries its exact value, and South's value never changes along perfect
    // play (a mover's margin is its opponent's, negated, unless the mover moves again).
    EXPECT_EQ(int(values.size()), count_occurrences(r.out, " plays ")) << r.out;
    const int proven = solved_margin(rules, 4, 3);
    for (const auto& [side, v] : values) EXPECT_EQ(side == 'S' ? v : -v, proven) << r.out;
    EXPECT_TRUE(contains(r.out, "as proven.")) << r.out;
    EXPECT_FALSE(contains(r.out, "NOT as proven")) << r.out;
  }
}

// The "moves P:V ..." list of each engine move line: every legal move's exact value, whose best is
// the line's value and whose best moves are the line's; the first line's list is what kalah query
// says of the start position.
TEST(PlayExact, EveryLineValuesEveryMove) {
  const CliResult r = run_cli(
      "KALAH play --self --exact --no-random --threads 2 --pits 4 --stones 3 --rules kalah");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const CliResult q = run_cli("KALAH query --json --rules kalah '3,3,3,3,0/3,3,3,3,0 S'");
  ASSERT_EQ(q.status, 0) << q.err;
  const auto start = nlohmann::json::parse(q.out);
  int lines = 0;
  for (std::size_t at = 0; (at = r.out.find("[exact ", at)) != std::string::npos; ++lines) {
    const std::size_t end = r.out.find(']', at);
    const std::string line = r.out.substr(at, end - at);
    at = end;
    const int value = std::stoi(line.substr(7));
    const std::size_t b = line.find(", best ") + 7, m = line.find("; moves ");
    ASSERT_NE(m, std::string::npos) << line;
    const std::string best = line.substr(b, m - b);
    std::istringstream list(line.substr(m + 8, line.find(';', m + 8) - m - 8));
    std::string item, want_best;
    int top = -1000;
    std::vector<std::pair<int, int>> moves;
    while (list >> item) {
      const std::size_t colon = item.find(':');
      ASSERT_NE(colon, std::string::npos) << line;
      moves.emplace_back(std::stoi(item.substr(0, colon)), std::stoi(item.substr(colon + 1)));
      top = std::max(top, moves.back().second);
    }
    for (const auto& [pit, v] : moves)
      if (v == top) want_best.append(want_best.empty() ? "" : " ").append(std::to_string(pit));
    EXPECT_EQ(top, value) << line;
    EXPECT_EQ(best, want_best) << line;
    if (lines == 0) {
      ASSERT_EQ(moves.size(), start.at("moves").size()) << line;
      for (std::size_t k = 0; k < moves.size(); ++k) {
        EXPECT_EQ(moves[k].first, start["moves"][k]["pit"].get<int>()) << line;
        EXPECT_EQ(moves[k].second, start["moves"][k]["margin"].get<int>()) << line;
      }
    }
  }
  EXPECT_EQ(lines, count_occurrences(r.out, " plays ")) << r.out;
}

TEST(PlayExact, AGameDecidedEarlyHasTheProvenOutcome) {
  // wetherell, 2 pits: S's only move puts a 6th of the 10 stones into its kalah, more than half;
  // played to its natural end the game is S's by 2.
  const CliResult r = run_cli("KALAH play --self --exact --no-random --position '0,1,5/2,2,0 S'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "[exact +2 for S, best 2;")) << r.out;
  EXPECT_TRUE(contains(r.out, "the game was decided with that outcome.")) << r.out;
}

TEST(PlayExact, OptionsThatDoNotApplyAreRefused) {
  for (const char* extra : {"--depth 4", "--nodes 1000", "--time 1", "--tt-mb 16"}) {
    const CliResult r = run_cli(std::string("KALAH play --self --exact --pits 2 ") + extra);
    EXPECT_EQ(r.status, 2) << extra;
    EXPECT_TRUE(contains(r.err, "does not apply to --exact")) << r.err;
  }
  const CliResult r = run_cli("KALAH play --self --threads 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--threads applies only to --exact")) << r.err;
}

TEST(PlayOptions, APositionExcludesPitsAndStonesAndTheTtMustFitInMemory) {
  for (const char* extra : {"--pits 13", "--pits 2", "--stones 4"}) {
    const CliResult r = run_cli(std::string("KALAH play --self --position '2,0/2,0 S' ") + extra);
    EXPECT_EQ(r.status, 2) << extra;
    EXPECT_TRUE(contains(r.err, "does not apply with --position")) << extra << ": " << r.err;
  }
  // A budget of 0 is no budget: it does not contradict --exact.
  EXPECT_EQ(run_cli("KALAH play --self --exact --nodes 0 --time 0 --position '2,0/2,0 S'").status,
            0);
  const CliResult r = run_cli("KALAH play --self --tt-mb 65537 --pits 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace kalah::test
