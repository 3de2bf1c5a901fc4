// What each command's --help promises, checked against what the binary does: options that used
// to be ignored are honoured (solve --book with --threads, --db-load, the automatic TT, --json)
// or refused with a one-line usage error (exit 2) where they cannot apply.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_run.hpp"

namespace {

using kalah::test::contains;
using kalah::test::count_lines;
using kalah::test::count_occurrences;
using Result = kalah::test::CliResult;

std::string temp_path(const std::string& what) {
  return kalah::test::fresh_path(what.c_str());
}

// Runs `kalah ARGS` (a shell line) with stdin empty.
Result kalah(const std::string& args) {
  return kalah::test::run_cli("KALAH " + args);
}

// A usage error: exit 2, nothing on stdout, one line on stderr naming `what`.
void expect_usage_error(const std::string& args, const std::string& what) {
  const Result r = kalah(args);
  EXPECT_EQ(r.status, 2) << args << ": " << r.out << r.err;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
  EXPECT_TRUE(contains(r.err, what)) << args << ": " << r.err;
}

// A kalah-rules 4-pit table of levels 0..10, built once for the tests that need a database.
class CliHelpTruthWithTable : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = new std::string(temp_path("db"));
    const Result gen =
        kalah("gen --rules kalah --pits 4 --max-stones 10 --threads 1 --quiet --db " + *db_);
    ASSERT_EQ(gen.status, 0) << gen.err;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*db_);
    delete db_;
  }
  static const std::string& db() { return *db_; }

 private:
  static std::string* db_;
};
std::string* CliHelpTruthWithTable::db_ = nullptr;

// solve --book used to print text whatever --json said, solve on one thread whatever --threads
// said, read the table through the block cache whatever --db-load said, and take a 256 MiB TT
// for --tt-mb 0, which --help says sizes the table to the position (16 MiB here with the table in
// memory, whose levels just above skip the TT under kalah; 64 MiB through the block cache).
TEST_F(CliHelpTruthWithTable, SolveBookHonoursJsonThreadsDbLoadAndTheAutomaticTt) {
  const std::string store = "solve --rules kalah --pits 4 --stones 3 --book --db " + db();
  // Each --json answer is one line parsed back as JSON.
  auto json = [&](const std::string& args) {
    const Result r = kalah(store + args + " --json");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines(r.out), 1) << r.out;
    return nlohmann::json::parse(r.out);
  };
  nlohmann::json j = json(" --threads 2");
  EXPECT_EQ(j.at("position"), "3,3,3,3,0/3,3,3,3,0 S");
  EXPECT_EQ(j.at("rules"), "kalah");
  EXPECT_EQ(j.at("book_plies"), 2);
  EXPECT_EQ(j.at("positions"), 20);
  EXPECT_EQ(j.at("stored"), 20);
  EXPECT_EQ(j.at("unsolved"), 0);
  EXPECT_EQ(j.at("threads"), 2);
  EXPECT_EQ(j.at("tt_mb_min"), 16);
  EXPECT_EQ(j.at("tt_mb_max"), 16);
  EXPECT_EQ(j.at("db_stones"), 10);
  EXPECT_EQ(j.at("db_in_memory"), true);
  EXPECT_GE(j.at("seconds").get<double>(), 0);

  j = json(" --threads 1 --db-load cache");
  EXPECT_EQ(j.at("tt_mb_min"), 64);
  EXPECT_EQ(j.at("tt_mb_max"), 64);
  EXPECT_EQ(j.at("db_in_memory"), false);
  j = json(" --threads 1 --tt-skip 0");
  EXPECT_EQ(j.at("tt_mb_min"), 64);
  EXPECT_EQ(j.at("db_in_memory"), true);

  j = json(" --threads 1 --db-load cache --tt-mb 8");
  EXPECT_EQ(j.at("threads"), 1);
  EXPECT_EQ(j.at("tt_mb_min"), 8);
  EXPECT_EQ(j.at("tt_mb_max"), 8);
  EXPECT_EQ(j.at("db_in_memory"), false);

  Result r;
  r = kalah(store + " --threads 2 --book-plies 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "book: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "2 threads, TT 16 MiB")) << r.out;
  EXPECT_TRUE(contains(r.out, "loaded into memory")) << r.out;

  // The book is there and right.
  const Result stats = kalah("stats --db " + db());
  EXPECT_TRUE(contains(stats.out, "book: 20 positions")) << stats.out;
  const Result verify = kalah("verify --quiet --db " + db());
  EXPECT_EQ(verify.status, 0) << verify.out << verify.err;
  EXPECT_TRUE(contains(verify.out, "book: 20 entries, 20 checked, 0 wrong")) << verify.out;

  // --store, the option's former name, writes the same book after a one-line notice.
  const std::string alias = "solve --rules kalah --pits 4 --stones 3 --store --book-plies 1 --db ";
  r = kalah(alias + db() + " --threads 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "book: ")) << r.out;
  EXPECT_EQ(r.err, "kalah solve: --store is now called --book; it does the same\n");
  expect_usage_error("solve --pits 2 --stones 1 --store --no-db", "--book needs a database");
}

// --book writes into an existing database; it used to create an empty one at a wrong path.
TEST(CliHelpTruth, SolveBookNeedsAnExistingDatabase) {
  const std::string missing = temp_path("missing");
  const Result r = kalah("solve --pits 2 --stones 1 --book --db " + missing);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, missing + " does not exist")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// Options that would be ignored are refused with a one-line usage error.
TEST(CliHelpTruth, IgnoredOptionsAreUsageErrors) {
  expect_usage_error("solve --pits 2 --stones 1 --book-plies 3",
                     "--book-plies applies only to --book");
  expect_usage_error("solve --pits 2 --stones 1 --no-db --db-load memory", "--db-load");
  expect_usage_error("solve --pits 2 --stones 1 --no-db --cache-mb 16", "--cache-mb");
  // More memory than any machine here has: refused up front, not a failed allocation.
  expect_usage_error("solve --pits 2 --stones 1 --no-db --tt-mb 1048576", "--tt-mb must be 0..");
  expect_usage_error("tree '1,1,0/1,1,0 S' --stones 4", "either --stones or a POSITION");
  expect_usage_error("tree '1,1,0/1,1,0 S' --pits 6", "--pits 6 disagrees");
  // gen and bench gen build tables: they have no --stones.
  expect_usage_error("gen --stones 4 --db /nonexistent/never-created", "stones");
  expect_usage_error("bench gen --stones 4", "stones");
}

TEST_F(CliHelpTruthWithTable, VerifyRefusesOptionsOfTheOtherMode) {
  const std::string v = "verify --quiet --db " + db();
  expect_usage_error(v + " --engine --positions 5 --depth 2 --sample 10",
                     "--sample applies only to the table check");
  expect_usage_error(v + " --resolve 3 --threads 2", "--threads applies only to the table check");
  expect_usage_error(v + " --depth 3", "--depth applies only to --engine");
  expect_usage_error(v + " --positions 3", "--positions applies only to --engine");
  expect_usage_error(v + " --resolve-max-stones 5",
                     "--resolve-max-stones applies only to --resolve");
  expect_usage_error(v + " --sample -1", "--sample must be 0..100000000, got -1");
  expect_usage_error(v + " --sample 100000001", "--sample must be 0..100000000");
  // The same options in their own mode are accepted.
  EXPECT_EQ(kalah(v + " --sample 100 --threads 1").status, 0);
  EXPECT_EQ(kalah(v + " --engine --positions 5 --depth 2").status, 0);
  EXPECT_EQ(kalah(v + " --resolve 3 --resolve-max-stones 6").status, 0);
}

// bench solve's TT: the help says what the code allocates, and the run says it too.
TEST(CliHelpTruth, BenchSolveHelpStatesItsTranspositionTable) {
  const Result help = kalah("bench solve --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_TRUE(contains(help.out, "Every solve: a 64 MiB TT")) << help.out;
  EXPECT_FALSE(contains(help.out, "256 MiB")) << help.out;
  const Result gen = kalah("bench gen --help");
  EXPECT_FALSE(contains(gen.out, "--stones")) << gen.out;
  EXPECT_TRUE(contains(gen.out, "top four levels")) << gen.out;
}

// bench solve --perfect-order prints each start's limit under its line, with fewer expanded nodes
// than the start's own solve, as its help says; the signature is the plain solves'.
TEST(CliHelpTruth, BenchSolvePerfectOrderPrintsEachStartsLimit) {
  const Result help = kalah("bench solve --help");
  EXPECT_TRUE(contains(help.out, "--perfect-order")) << help.out;
  const std::string starts = " --start wetherell:4x3 kalah:4x3 kalah-empty-capture:4x3 --tt-mb 8";
  const Result plain = kalah("bench solve" + starts);
  const Result r = kalah("bench solve --perfect-order" + starts);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  int limits = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!contains(line, "perfect order:")) continue;
    ++limits;
    unsigned long long nodes = 0, expanded = 0, without = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), " perfect order: %llu nodes, %llu expanded (%llu without",
                          &nodes, &expanded, &without),
              3)
        << line;
    EXPECT_LT(expanded, without) << line;
  }
  EXPECT_EQ(limits, 3) << r.out;
  const auto signature = [](const std::string& out) {
    return out.substr(out.find("total "), out.find(" nodes (signature)") - out.find("total "));
  };
  EXPECT_EQ(signature(r.out), signature(plain.out)) << r.out;
}

// bench solve --start: the named starts are solved, a malformed one is a usage error.
TEST(CliHelpTruth, BenchSolveStartNamesItsStarts) {
  const Result r = kalah("bench solve --start kalah:3x2 wetherell:2x3 --tt-mb 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "TT 4 MiB")) << r.out;
  EXPECT_TRUE(contains(r.out, "kalah                3x2")) << r.out;
  EXPECT_TRUE(contains(r.out, "wetherell            2x3")) << r.out;
  EXPECT_FALSE(contains(r.out, "4x6")) << r.out;
  for (const char* bad : {"kalah:6", "kalah:0x3", "kalah:6x4z", "nope:6x4", "kalah:17x1"})
    expect_usage_error(std::string("bench solve --start ") + bad, bad);
}

// bench gen prints the top four levels, as its help says.
TEST(CliHelpTruth, BenchGenPrintsTheTopFourLevels) {
  const Result r = kalah("bench gen --pits 2 --max-stones 6 --threads 1");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* level : {"level  3:", "level  4:", "level  5:", "level  6:"})
    EXPECT_TRUE(contains(r.out, level)) << r.out;
  EXPECT_FALSE(contains(r.out, "level  2:")) << r.out;
}

// solve --trace-expanded: a line for each expanded node (the JSON's expanded_nodes), each a
// position and a window; the answer and the nodes as without it; one thread only.
TEST(SolveTraceExpanded, ALineForEachExpandedNodeOnOneThread) {
  const std::string trace = temp_path("trace");
  const std::string solve = "solve --rules kalah --pits 4 --stones 3 --no-db --json --threads 1";
  const Result traced = kalah(solve + " --trace-expanded " + trace);
  const Result plain = kalah(solve);
  ASSERT_EQ(traced.status, 0) << traced.err;
  const auto with = nlohmann::json::parse(traced.out), without = nlohmann::json::parse(plain.out);
  EXPECT_EQ(with["margin"], without["margin"]);
  EXPECT_EQ(with["nodes"], without["nodes"]);
  std::ifstream in(trace);
  std::string line;
  std::uint64_t lines = 0;
  while (std::getline(in, line)) {
    if (lines++ == 0) {
      EXPECT_EQ(line.substr(0, line.find('\t')), "3,3,3,3,0/3,3,3,3,0 S");
    }
    const auto tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
    ASSERT_NE(tab2, std::string::npos) << line;
    EXPECT_LT(std::stoi(line.substr(tab + 1)), std::stoi(line.substr(tab2 + 1))) << line;
  }
  EXPECT_EQ(lines, with["expanded_nodes"].get<std::uint64_t>());
  EXPECT_GT(lines, 100u);
  std::remove(trace.c_str());
  expect_usage_error(
      "solve --rules kalah --pits 4 --stones 3 --no-db --threads 2 "
      "--trace-expanded " +
          trace,
      "--trace-expanded");
}

// solve --trace-tests: a line on stderr and a JSON entry for each test at the root, each agreeing
// with the bounds the answer reports and saying whether it went through the best-first top; the
// answer and the nodes as without it; one thread only.
TEST(SolveTraceTests, EachRootTestAgreesWithTheAnswerOnOneThread) {
  int climbs = 0;  // the first move's tests after its first (none when it reaches the root's bound)
  for (const char* rules : {"kalah", "kalah-empty-capture", "wetherell"}) {
    // Kalahs 2 and 1 (a kalah difference the margins count) and an empty pit (no move 3).
    const std::string solve =
        std::string("solve \"3,3,0,3,2/4,3,3,3,1 S\" --no-db --json --threads 1 --rules ") + rules;
    const Result traced = kalah(solve + " --trace-tests");
    const Result plain = kalah(solve);
    ASSERT_EQ(traced.status, 0) << traced.err;
    const auto with = nlohmann::json::parse(traced.out), without = nlohmann::json::parse(plain.out);
    EXPECT_EQ(with["margin"], without["margin"]) << rules;
    EXPECT_EQ(with["nodes"], without["nodes"]) << rules;
    EXPECT_FALSE(without.contains("tests"));
    const auto& tests = with["tests"];
    ASSERT_GE(tests.size(), 2u) << rules;
    EXPECT_EQ(tests[0]["pit"], 0) << "MTD(f)'s test of the root comes first";
    EXPECT_EQ(count_lines(traced.err), int(tests.size())) << traced.err;
    EXPECT_EQ(traced.err.rfind("test: the root: margin >= ", 0), 0u) << traced.err;
    std::uint64_t nodes = 0;
    std::vector<bool> tested(5, false);
    const int margin = with["margin"];
    for (const auto& t : tests) {
      const int pit = t["pit"], claim = t["level"], bound = t["bound"];
      const bool holds = t["holds"];
      nodes += t["nodes"].get<std::uint64_t>();
      EXPECT_EQ(holds, bound >= claim) << t.dump();
      // The answer's bounds on the position or the move are at least as tight as the test's.
      int lower = margin, upper = margin;
      if (pit != 0) {
        tested[pit] = true;
        for (const auto& m : with["moves"]) {
          if (m["pit"] == pit) {
            lower = m["lower"];
            upper = m["upper"];
          }
        }
      }
      if (holds) {
        EXPECT_GE(lower, bound) << rules << ": " << t.dump();
      } else {
        EXPECT_LE(upper, bound) << rules << ": " << t.dump();
      }
    }
    EXPECT_LE(nodes, with["nodes"].get<std::uint64_t>()) << rules;
    for (const auto& m : with["moves"]) EXPECT_TRUE(tested[m["pit"].get<int>()]) << m.dump();
    // The routing docs/SOLVER.md gives ("The best-first top"): the first move settled is tested
    // depth-first at the margin proven, then climbs through the refutation top; the other moves
    // go through it too except under kalah-empty-capture (SolveTuning::kRefuteOtherMoves).
    int first_pit = 0, first_tests = 0;
    for (const auto& t : tests) {
      const int pit = t["pit"];
      if (pit == 0) continue;
      if (first_pit == 0) first_pit = pit;
      const bool best_first = t["best_first"];
      if (pit == first_pit) {
        EXPECT_EQ(best_first, first_tests++ > 0) << rules << ": " << t.dump();
        climbs += first_tests > 1;
      } else {
        EXPECT_EQ(best_first, std::string(rules) != "kalah-empty-capture")
            << rules << ": " << t.dump();
      }
    }
    // The text says the same: a line for each test, ending in how it was searched.
    int best_first_lines = 0;
    for (const auto& t : tests) best_first_lines += t["best_first"].get<bool>();
    EXPECT_EQ(count_occurrences(traced.err, " expanded, best-first)\n"), best_first_lines);
    EXPECT_EQ(count_occurrences(traced.err, " expanded, depth-first)\n"),
              int(tests.size()) - best_first_lines);
    // With --best-first 0 every test is depth-first; with --best-first 16 every test goes
    // through the top.
    for (const char* plies : {"0", "16"}) {
      const Result forced = kalah(solve + " --trace-tests --best-first " + plies);
      ASSERT_EQ(forced.status, 0) << forced.err;
      const auto j = nlohmann::json::parse(forced.out);
      EXPECT_EQ(j["margin"], with["margin"]) << rules;
      for (const auto& t : j["tests"])
        EXPECT_EQ(t["best_first"], std::string(plies) == "16") << rules << ": " << t.dump();
    }
  }
  EXPECT_GT(climbs, 0) << "no climb was traced";
  expect_usage_error("solve --rules kalah --pits 4 --stones 3 --no-db --threads 2 --trace-tests",
                     "--trace-tests");
}

}  // namespace
