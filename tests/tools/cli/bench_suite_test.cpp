// `kalah bench suite` end to end: the workloads, nodes by kind, the JSON, the baseline, bad input.
#include <gtest/gtest.h>

#include <cstdint>
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
using kalah::test::slurp;
using Json = nlohmann::json;

const char* const kSmall = " --only small-kalah-5x3 small-empty-5x4";

TEST(BenchSuite, ListsEveryWorkloadAndTheTableItNeeds) {
  const auto r = run_cli("KALAH bench suite --list");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 20u) << r.out;
  for (const char* line :
       {"kalah-6x4-16             kalah", "<= 16 kalah 6-pit table", "kalah-6x4-ply4-8",
        "etude-6x3-20-every-move", "every move exact",
        "empty-54-stones-24       kalah-empty-capture  0,2,1,0,9,9,4/1,8,1,8,8,7,2 N",
        "small-etude-4x6          wetherell            6,6,6,6,0/6,6,6,6,0 S"})
    EXPECT_TRUE(contains(r.out, line)) << line;
}

// The small boards on one and two threads: the one-thread solves repeat their counts exactly, the
// kinds of nodes add up to no more than all of them, the signature is their sum; each run says
// what its best-first trees held.
TEST(BenchSuite, NodesByKindInTextAndJson) {
  const std::string json = fresh_path("suite_json"), again = fresh_path("suite_again");
  const auto r = run_cli("KALAH bench suite --threads 1,2 --json " + json + kSmall);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 of 2 workloads run")) << r.out;
  const Json j = Json::parse(slurp(json));
  ASSERT_EQ(j["workloads"].size(), 2u);
  std::uint64_t one_thread = 0;
  for (const Json& w : j["workloads"]) {
    EXPECT_TRUE(w["skipped"].is_null());
    ASSERT_EQ(w["runs"].size(), 2u);
    for (const Json& run : w["runs"]) {
      const std::uint64_t nodes = run["nodes"], expanded = run["expanded"],
                          cutoffs = run["tt_cutoffs"], hits = run["table_hits"];
      EXPECT_GT(expanded, 0u);
      EXPECT_GT(cutoffs, 0u) << "the TT settles nodes on these boards";
      EXPECT_EQ(hits, 0u) << "no table";
      EXPECT_LT(expanded + cutoffs + hits, nodes);
      EXPECT_EQ(run["margin"], w["runs"][0]["margin"]);
      ASSERT_TRUE(run.contains("best_first_tree"));
      const Json& tree = run["best_first_tree"];  // what the tops held, if any grew
      EXPECT_LE(tree["repeated"].get<std::uint64_t>(), tree["nodes"].get<std::uint64_t>());
      EXPECT_LE(tree["repeated_expanded"].get<std::uint64_t>(),
                tree["expanded"].get<std::uint64_t>());
      if (run["threads"] == 1) one_thread += nodes;
    }
  }
  EXPECT_EQ(j["signature"].get<std::uint64_t>(), one_thread);
  EXPECT_TRUE(contains(r.out, "small-empty-5x4                1    +12")) << r.out;
  ASSERT_EQ(run_cli("KALAH bench suite --threads 1 --json " + again + kSmall).status, 0);
  EXPECT_EQ(Json::parse(slurp(again))["signature"], j["signature"]);
}

// Against its own figures with the perfect-order limit: the same expanded nodes, none of the gap
// closed; without the limit on either side no gap is claimed.
TEST(BenchSuite, BaselineRatiosAndTheGapClosed) {
  const std::string plain = fresh_path("suite_plain"), limit = fresh_path("suite_limit");
  ASSERT_EQ(run_cli("KALAH bench suite --threads 1 --only small-kalah-5x3 --json " + plain).status,
            0);
  const auto with = run_cli(
      "KALAH bench suite --threads 1 --only small-kalah-5x3 --perfect-order "
      "--json " +
      limit + " --baseline " + plain);
  ASSERT_EQ(with.status, 0) << with.err;
  EXPECT_TRUE(contains(with.out, "perfect order: ")) << with.out;
  EXPECT_TRUE(contains(with.out, "against the baseline: expanded 1.000x")) << with.out;
  EXPECT_TRUE(contains(with.out, "gap to the limit closed 0.0%")) << with.out;
  const Json j = Json::parse(slurp(limit));
  const Json& w = j["workloads"][0];
  EXPECT_LT(w["perfect_order"]["expanded"].get<std::uint64_t>(),
            w["runs"][0]["expanded"].get<std::uint64_t>());
  EXPECT_EQ(w["against_baseline"]["gap_closed"].get<double>(), 0.0);
  const auto without =
      run_cli("KALAH bench suite --threads 1 --only small-kalah-5x3 --baseline " + plain);
  ASSERT_EQ(without.status, 0) << without.err;
  EXPECT_TRUE(contains(without.out, "against the baseline: expanded 1.000x")) << without.out;
  EXPECT_FALSE(contains(without.out, "gap")) << without.out;
}

// --levels: the traced solve's expansions add up to the one-thread solve's expanded nodes, and no
// level has more distinct positions than expansions; some are expanded more than once.
TEST(BenchSuite, LevelsCountExpansionsAndDistinctPositions) {
  const std::string json = fresh_path("suite_levels");
  const auto r = run_cli(
      "KALAH bench suite --threads 1 --best-first 0 --levels --only small-empty-5x4 --json " +
      json);  // the levels' solve is depth-first: so is the one they are compared with
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "expanded by stones in pits (expansions/positions): ")) << r.out;
  const Json w = Json::parse(slurp(json))["workloads"][0];
  std::uint64_t expansions = 0, positions = 0;
  int last = -1;
  for (const Json& level : w["expanded_by_stones"]) {
    const std::uint64_t e = level["expansions"], p = level["positions"];
    EXPECT_GT(level["stones"].get<int>(), last);
    last = level["stones"];
    EXPECT_LE(p, e);
    EXPECT_GT(p, 0u);
    expansions += e;
    positions += p;
  }
  EXPECT_EQ(expansions, w["runs"][0]["expanded"].get<std::uint64_t>());
  EXPECT_LT(positions, expansions) << "MTD(f)'s tests expand some positions again";
}

// A workload whose table no database holds through its levels is reported skipped, naming the
// table and what the databases hold; the others run.
TEST(BenchSuite, WorkloadsWithoutTheirTableAreSkippedByName) {
  const std::string db = fresh_path("suite_db");
  ASSERT_EQ(run_cli("KALAH gen --pits 6 --max-stones 4 --threads 1 --quiet --db " + db).status, 0);
  const auto r = run_cli("KALAH bench suite --threads 1 --db " + db +
                         " --only kalah-6x4-16 etude-6x3-20 small-kalah-5x3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out,
                       "kalah-6x4-16             skipped: needs a <= 16 kalah 6-pit table "
                       "(no database given holds it)"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "etude-6x3-20             skipped: needs a <= 20 wetherell 6-pit "
                       "table (the databases given hold it through 4)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "1 of 3 workloads run")) << r.out;
  std::filesystem::remove_all(db);
}

TEST(BenchSuite, BadInputIsAOneLineError) {
  const std::string not_json = fresh_path("suite_not_json");
  std::ofstream(not_json) << "{\"workloads\": 3}";
  const struct {
    std::string args, says;
  } cases[] = {
      {"--only nosuch", "--only nosuch: no such workload"},
      {"--threads 0", "--threads 0: expected thread counts 1..256"},
      {"--threads 1,x", "--threads 1,x"},
      {"--tt-mb -1", "tt-mb"},
      {"--baseline /nonexistent/suite.json", "--baseline /nonexistent/suite.json: cannot read"},
      {"--baseline " + not_json, "not a bench suite --json file"},
      {"--json /nonexistent/dir/out.json", "--json /nonexistent/dir/out.json: cannot write"},
      {"--db /nonexistent/kalah.db", "/nonexistent/kalah.db"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli("KALAH bench suite --only small-kalah-5x3 " + c.args);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_TRUE(contains(r.err, c.says)) << c.args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << c.args << ": " << r.err;
  }
}

}  // namespace
