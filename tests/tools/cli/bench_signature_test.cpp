// `kalah bench` (the search workload) at a small depth: its signature, the total node count, is
// frozen here. The engine's search is deterministic for fixed options (one thread, an empty TT per
// position, no random choice), so any change of the count means the search changed: its move
// order, pruning, TT use or evaluation. If that change is intended, measure it
// (docs/PERFORMANCE.md, engine) and update the numbers below.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "tests/support/cli_run.hpp"

namespace {

using Output = kalah::test::CliResult;

Output run_kalah(const std::string& args) {
  return kalah::test::run_cli("KALAH " + args);
}

// The node count of the table line starting with `label` ("wetherell", "total"), or -1.
long long nodes_of(const std::string& out, const std::string& label) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    long long nodes = -1;
    if (words >> first >> nodes && first == label) return nodes;
  }
  return -1;
}

// Depth 10: a fraction of a second, also under the sanitizers.
constexpr const char* kBench = "bench search --depth 10 --tt-mb 64";

TEST(BenchSignature, SearchAtDepth10IsFrozen) {
  const Output r = run_kalah(kBench);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("depth 10, TT 64 MiB, 1 thread"), std::string::npos) << r.out;
  EXPECT_EQ(nodes_of(r.out, "wetherell"), 317213) << r.out;
  EXPECT_EQ(nodes_of(r.out, "kalah"), 169814) << r.out;
  EXPECT_EQ(nodes_of(r.out, "kalah-empty-capture"), 173192) << r.out;
  EXPECT_EQ(nodes_of(r.out, "total"), 660219) << r.out;
  EXPECT_NE(r.out.find("\nsignature: 660219\n"), std::string::npos) << r.out;
}

// The default workload (no name) is the search workload, and one rule set alone gives its own
// part of the signature.
TEST(BenchSignature, DefaultWorkloadAndOneRuleSetAgree) {
  const Output all = run_kalah("bench --depth 10 --tt-mb 64");
  ASSERT_EQ(all.status, 0) << all.out;
  EXPECT_NE(all.out.find("\nsignature: 660219\n"), std::string::npos) << all.out;
  const Output kalah = run_kalah(std::string(kBench) + " --rules kalah");
  ASSERT_EQ(kalah.status, 0) << kalah.out;
  EXPECT_NE(kalah.out.find("\nsignature: 169814\n"), std::string::npos) << kalah.out;
  EXPECT_EQ(nodes_of(kalah.out, "wetherell"), -1) << kalah.out;
}

}  // namespace
