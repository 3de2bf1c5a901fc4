// `kalah bench query --positions`: positions of a file queried with and without the best-first
// top, the same values either way; bad input a one-line error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/cli_run.hpp"

namespace {

using kalah::test::contains;
using kalah::test::count_lines;
using kalah::test::fresh_path;
using kalah::test::run_cli;
using Json = nlohmann::json;

// The lines of `text` that start with two spaces: one a position, then the totals.
std::string position_lines(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    if (line.rfind("  ", 0) == 0 && !contains(line, "positions:")) {
      // "  POSITION: S s, N nodes: VALUES": the position and values, not the time or nodes.
      const std::size_t colon = line.find(": "), values = line.rfind(": ");
      out += line.substr(0, colon) + line.substr(values) + "\n";
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

class BenchQueryPositions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(fresh_path("bench_query_db"));
    ASSERT_EQ(
        run_cli("KALAH gen --rules kalah --pits 6 --max-stones 4 --threads 1 --quiet --db " + *db_)
            .status,
        0);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*db_);
    delete db_;
  }
  static std::string* db_;
};
std::string* BenchQueryPositions::db_ = nullptr;

// Each position beyond the table is answered, every move exact, as kalah query answers it; the
// best-first top (the one-thread default, or --best-first 16) and the depth-first search
// (--best-first 0) give the same values and the same signature.
TEST_F(BenchQueryPositions, TopAndDepthFirstGiveTheSameValues) {
  const std::string file = fresh_path("bench_query_positions");
  std::ofstream(file) << "# beyond the <= 4 table\n"
                         "1,1,2,0,1,1,3/1,0,2,1,1,0,2 S\n"
                         "\n"
                         "0,2,1,1,1,1,5/2,1,0,1,1,1,1 N  # a comment after a position\n";
  std::string values, signature;
  for (const char* best_first : {"0", "16", "-1"}) {
    const auto r = run_cli("KALAH bench query --db " + *db_ + " --rules kalah --threads 1 " +
                           "--positions " + file + " --best-first " + best_first);
    ASSERT_EQ(r.status, 0) << best_first << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "  2 positions: ")) << r.out;
    const std::string v = position_lines(r.out);
    EXPECT_TRUE(contains(v, "1,1,2,0,1,1,3/1,0,2,1,1,0,2 S: 1:")) << r.out;
    const std::string s = r.out.substr(r.out.find("signature: "));
    if (values.empty()) {
      values = v;
      signature = s;
    }
    EXPECT_EQ(v, values) << "--best-first " << best_first;
    EXPECT_EQ(s, signature) << "--best-first " << best_first;
  }
  // The values are kalah query's.
  const auto q =
      run_cli("KALAH query '1,1,2,0,1,1,3/1,0,2,1,1,0,2 S' --json --rules kalah --db " + *db_);
  ASSERT_EQ(q.status, 0) << q.err;
  std::string want = "1,1,2,0,1,1,3/1,0,2,1,1,0,2 S: ";
  const Json answer = Json::parse(q.out);
  for (const Json& m : answer["moves"])
    want +=
        std::to_string(m["pit"].get<int>()) + ":" + std::to_string(m["margin"].get<int>()) + " ";
  want.back() = '\n';
  EXPECT_TRUE(contains(values, want)) << values << "\nkalah query: " << want;
  std::filesystem::remove(file);
}

TEST_F(BenchQueryPositions, BadInputIsAOneLineError) {
  const std::string bad = fresh_path("bench_query_bad");
  std::ofstream(bad) << "1,1,2,0,1,1,3/1,0,2,1,1,0,2 S\nnot a position\n";
  const std::string five = fresh_path("bench_query_five");
  std::ofstream(five) << "1,1,2,0,1,3/1,0,2,1,1,2 S\n";
  const std::string empty = fresh_path("bench_query_empty");
  std::ofstream(empty) << "# nothing\n\n";
  const struct {
    std::string args, says;
  } cases[] = {
      {"--positions " + bad, "--positions needs --rules"},
      {"--rules kalah --positions " + bad, "line 2"},
      {"--rules kalah --positions " + five, "line 1: not a 6-pit position"},
      {"--rules kalah --positions " + empty, "no position"},
      {"--rules kalah --positions /nonexistent/p.txt", "/nonexistent/p.txt: cannot be read"},
      {"--rules kalah --best-first 65", "best-first"},
      {"--rules kalah --best-first -2", "best-first"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli("KALAH bench query --db " + *db_ + " --threads 1 " + c.args);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_TRUE(contains(r.err, c.says)) << c.args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << c.args << ": " << r.err;
  }
  std::filesystem::remove(bad);
  std::filesystem::remove(five);
  std::filesystem::remove(empty);
}

}  // namespace
