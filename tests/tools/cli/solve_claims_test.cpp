// kalah solve's claims end to end: --at-least/--at-most hold exactly where the solve's margin says,
// and a --certificate's commands prove every root move again and fail when a bound is changed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_run.hpp"

namespace {

using kalah::test::contains;
using kalah::test::run_cli;
using kalah::test::temp_path;

// The margin `kalah solve --json` prints for the position (its command-line words).
int solved_margin(const std::string& args) {
  const auto r = run_cli("KALAH solve --json --threads 1 " + args);
  EXPECT_EQ(r.status, 0) << r.err;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex("\"margin\":(-?[0-9]+)"))) << r.out;
  return m.empty() ? 0 : std::stoi(m[1]);
}

const std::vector<std::string> kPositions = {
    "--no-db --rules wetherell --pits 4 --stones 3",
    "--no-db --rules kalah --pits 4 --stones 3",
    "--no-db --rules kalah-empty-capture --pits 4 --stones 3",
    "--no-db --rules kalah '0,3,1,5,2/4,0,2,0,7 N'",
};

TEST(SolveClaims, ABoundHoldsExactlyWhereTheMarginLies) {
  for (const std::string& p : kPositions) {
    const int v = solved_margin(p);
    const std::string claim = "KALAH solve --threads 1 " + p;
    const auto both =
        run_cli(claim + " --at-least " + std::to_string(v) + " --at-most " + std::to_string(v));
    EXPECT_EQ(both.status, 0) << p << "\n" << both.out << both.err;
    EXPECT_TRUE(contains(both.out, "margin >= " + std::to_string(v) + ": holds")) << both.out;
    EXPECT_TRUE(contains(both.out, "margin <= " + std::to_string(v) + ": holds")) << both.out;
    const auto above = run_cli(claim + " --at-least " + std::to_string(v + 1));
    EXPECT_EQ(above.status, 1) << p << "\n" << above.out;
    EXPECT_TRUE(contains(above.out, "does not hold (proven margin <= " + std::to_string(v) + ")"))
        << above.out;
    const auto below = run_cli(claim + " --at-most " + std::to_string(v - 1) + " --json");
    EXPECT_EQ(below.status, 1) << p << "\n" << below.out;
    EXPECT_TRUE(contains(below.out, "\"holds\":false")) << below.out;
  }
}

// The certificate's command lines (those that start with "kalah solve").
std::vector<std::string> commands_of(const std::string& certificate) {
  std::vector<std::string> out;
  std::istringstream in(certificate);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("kalah solve ", 0) == 0) out.push_back(line);
  return out;
}

// Runs a certificate with the tested binary as `kalah`.
kalah::test::CliResult run_certificate(const std::string& path) {
  const std::string dir = std::filesystem::path(KALAH_BINARY).parent_path().string();
  return run_cli("PATH='" + dir + "':\"$PATH\" sh '" + path + "'");
}

TEST(SolveClaims, ACertificateProvesEveryRootMoveAgainAndFailsWhenABoundChanges) {
  const std::string db = temp_path("claims-db");
  std::filesystem::remove(db);
  ASSERT_EQ(
      run_cli("KALAH gen --rules kalah --pits 4 --max-stones 8 --threads 1 --quiet --db " + db)
          .status,
      0);
  std::vector<std::string> positions = kPositions;
  positions.push_back("--db " + db + " --rules kalah --pits 4 --stones 2");
  for (const std::string& p : positions) {
    const std::string cert = temp_path("certificate");
    const auto solve = run_cli("KALAH solve --threads 1 --certificate " + cert + " " + p);
    ASSERT_EQ(solve.status, 0) << p << "\n" << solve.err;
    const std::string text = kalah::test::slurp(cert);
    const std::vector<std::string> commands = commands_of(text);
    ASSERT_FALSE(commands.empty()) << text;
    if (contains(p, "--db ")) {
      EXPECT_TRUE(contains(commands[0], "--db '" + db + "' --db-max-stones 8")) << text;
    }
    const auto ok = run_certificate(cert);
    EXPECT_EQ(ok.status, 0) << text << ok.out << ok.err;
    EXPECT_TRUE(
        contains(ok.out, "the claims of " + std::to_string(commands.size()) + " root move(s) hold"))
        << ok.out;
    // A best move's exact value moved up by one: its line, and so the script, fails.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex("--at-least (-?[0-9]+) --at-most \\1 ")))
        << text;
    const int v = std::stoi(m[1]);
    const std::string bumped =
        "--at-least " + std::to_string(v + 1) + " --at-most " + std::to_string(v + 1) + " ";
    std::ofstream(cert) << text.substr(0, m.position(0)) << bumped
                        << text.substr(m.position(0) + m.length(0));
    const auto bad = run_certificate(cert);
    EXPECT_EQ(bad.status, 1) << bad.out;
    EXPECT_TRUE(contains(bad.out, "does not hold")) << bad.out;
    EXPECT_FALSE(contains(bad.out, "root move(s) hold")) << bad.out;
    std::filesystem::remove(cert);
  }
  std::filesystem::remove_all(db);
}

// A claim's checkpoint keeps the bounds it proved: a claim they decide is answered from them, and
// a solve of the position resumes from the same file to the same margin.
TEST(SolveClaims, ACheckpointKeepsWhatTheClaimsProved) {
  const std::string p = " --no-db --rules kalah '0,3,1,5,2/4,0,2,0,7 N'";
  const int v = solved_margin(p);
  const std::string ckpt = kalah::test::fresh_path("claims-ckpt");
  const std::string claim = "KALAH solve --threads 1 --tt-mb 1 --checkpoint " + ckpt + p;
  const auto first = run_cli(claim + " --at-least " + std::to_string(v));
  EXPECT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_TRUE(contains(first.out, "checkpoint: " + ckpt + " (new), 1 run")) << first.out;
  const auto again = run_cli(claim + " --at-least " + std::to_string(v - 2) + " --json");
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_TRUE(contains(again.out, "\"holds\":true")) << again.out;
  EXPECT_TRUE(contains(again.out, "\"nodes\":0,"))
      << "decided by the checkpoint's bounds: " << again.out;
  const auto solve = run_cli("KALAH solve --threads 1 --tt-mb 1 --json --checkpoint " + ckpt + p);
  EXPECT_EQ(solve.status, 0) << solve.err;
  EXPECT_TRUE(contains(solve.out, "\"margin\":" + std::to_string(v) + ",")) << solve.out;
  EXPECT_TRUE(contains(solve.out, "\"runs\":3")) << solve.out;
  std::filesystem::remove(ckpt);
}

// A claim the time limit stops: unknown, exit 1; its progress line names the claim's test.
TEST(SolveClaims, AStoppedClaimIsUnknownAndItsProgressNamesItsTest) {
  const auto r = run_cli(
      "KALAH solve --no-db --rules wetherell --pits 6 --stones 4 --threads 1 --tt-mb 16 "
      "--at-least 2 --max-time 1.5 --progress");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "claim:      margin >= 2: unknown (time limit)")) << r.out;
  EXPECT_TRUE(contains(r.err, "value: test margin >= 2")) << r.err;
}

// A claim's progress line shows the bounds already proven, its checkpoint's or a claim's before it
// in the same run: after margin >= -40 is proven, an unfinished test's line starts at that bound.
TEST(SolveClaims, AClaimsProgressShowsTheBoundsAlreadyProven) {
  const std::string ckpt = kalah::test::fresh_path("claims-progress-ckpt");
  const std::string claim =
      "KALAH solve --no-db --rules wetherell --pits 6 --stones 4 --threads 1 --tt-mb 16 "
      "--checkpoint " +
      ckpt;
  const auto weak = run_cli(claim + " --at-least -40");
  ASSERT_EQ(weak.status, 0) << weak.out << weak.err;
  std::smatch proven;  // fail-soft: the bound proven may lie above the claim's
  ASSERT_TRUE(std::regex_search(weak.out, proven, std::regex("proven margin >= (-?[0-9]+)")))
      << weak.out;
  const std::string line = "margin in [" + proven[1].str() + ", 48], value: test margin >= 2";
  const auto r = run_cli(claim + " --at-least 2 --max-time 1.5 --progress");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, line)) << r.err;
  std::filesystem::remove(ckpt);
  // The same from the claim before it in one run (--at-least is tested first), no checkpoint.
  const auto both = run_cli(
      "KALAH solve --no-db --rules wetherell --pits 6 --stones 4 --threads 1 --tt-mb 16 "
      "--at-least -40 --at-most -2 --max-time 1.5 --progress");
  EXPECT_EQ(both.status, 1) << both.out << both.err;
  EXPECT_TRUE(
      contains(both.err, "margin in [" + proven[1].str() + ", 48], value: test margin >= -1"))
      << both.err;
}

TEST(SolveClaims, MisusedOptionsAreOneLineErrors) {
  const std::string p = " --no-db --rules kalah --pits 4 --stones 3";
  auto r = run_cli("KALAH solve --at-least 2 --certificate /tmp/x" + p);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--certificate does not apply to --at-least/--at-most")) << r.err;
  r = run_cli("KALAH solve --at-most 9999" + p);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--at-most must be in [-510, 510]")) << r.err;
  r = run_cli("KALAH solve --certificate /nonexistent-dir/c.sh" + p);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err,
                       "cannot write certificate /nonexistent-dir/c.sh: directory "
                       "/nonexistent-dir does not exist"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << "refused before the search: " << r.out;
}

}  // namespace
