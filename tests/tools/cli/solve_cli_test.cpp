// kalah solve at the command line: the value, moves and PV printed, game-over positions, time
// limits, the database load modes, and bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/db_error.hpp"
#include "db/probe.hpp"
#include "engine/move.hpp"
#include "engine/physical_memory.hpp"
#include "solver/exhaustive/root_solver.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"
#include "tests/support/vectors.hpp"

#include "tests/support/solve_test_util.hpp"

namespace kalah {
namespace {

using namespace test;

// `kalah solve ARGS` through the shell: exit status, stdout, stderr.
test::CliResult kalah_solve(const std::string& args) {
  return test::run_cli("KALAH solve " + args);
}

TEST(SolveCli, PrintsValueMovesAndPv) {
  const test::CliResult r = kalah_solve("--no-db --pits 3 --stones 3");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("outcome:    loss for S"), std::string::npos) << r.out;  // RULES.md
  EXPECT_NE(r.out.find("margin:     -2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best moves: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pv:         "), std::string::npos) << r.out;
  const test::CliResult j = kalah_solve("--no-db --json --pits 2 --stones 3 --threads 1");
  ASSERT_EQ(j.status, 0) << j.err;
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_EQ(parsed.at("complete"), true);
  EXPECT_EQ(parsed.at("outcome"), "win");
  EXPECT_EQ(parsed.at("margin"), 6);
  EXPECT_EQ(parsed.at("lower"), 6);
  EXPECT_EQ(parsed.at("upper"), 6);
  ASSERT_TRUE(parsed.at("best_moves").is_array());
  EXPECT_FALSE(parsed.at("best_moves").empty());
  const auto best = parsed.at("best_moves").get<std::vector<int>>();
  EXPECT_NE(std::find(best.begin(), best.end(), parsed.at("pv").at(0).get<int>()), best.end());
  EXPECT_EQ(parsed.at("idle_thread_seconds"), 0.0);  // one thread: no helper to wait
}

TEST(SolveCli, GameOverPositionAndTimeLimit) {
  const test::CliResult over = kalah_solve("--no-db --rules kalah 1,6,1,5/0,0,0,5 S");
  ASSERT_EQ(over.status, 0) << over.err;
  EXPECT_NE(over.out.find("margin:     +8"), std::string::npos) << over.out;
  EXPECT_NE(over.out.find("none (game over)"), std::string::npos) << over.out;
  const test::CliResult limited =
      kalah_solve("--no-db --pits 6 --stones 3 --max-time 0.05 --tt-mb 16 --json");
  ASSERT_EQ(limited.status, 0) << limited.err;
  const auto bounded = nlohmann::json::parse(limited.out);
  EXPECT_EQ(bounded.at("complete"), false);
  EXPECT_TRUE(bounded.at("margin").is_null());
  EXPECT_TRUE(bounded.at("best_moves").is_null());
  EXPECT_LT(bounded.at("lower").get<int>(), bounded.at("upper").get<int>());
}

// The database in memory, through the block cache, or not at all: the same answer.
TEST(SolveCli, DatabaseLoadModesAgree) {
  const std::string db = ::testing::TempDir() + "kalah_solve_db_" + std::to_string(::getpid());
  const std::string gen = "'" KALAH_BINARY
                          "' gen --rules kalah --pits 4 --max-stones 10 --quiet "
                          "--db '" +
                          db + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(gen.c_str()), 0);
  const std::string game = "--rules kalah --pits 4 --stones 3 --db '" + db + "'";
  const test::CliResult memory = kalah_solve(game + " --db-load memory");
  const test::CliResult cache = kalah_solve(game + " --db-load cache --cache-mb 1");
  const test::CliResult lower = kalah_solve(game + " --db-max-stones 6");
  const test::CliResult too_many = kalah_solve(game + " --db-max-stones 128");
  const test::CliResult tt_skip0 = kalah_solve(game + " --threads 1 --tt-skip 0");
  const test::CliResult tt_skip3 = kalah_solve(game + " --threads 1 --tt-skip 3");
  const test::CliResult untabled3 = kalah_solve(game + " --threads 1 --untabled 3");
  const test::CliResult both = kalah_solve(game + " --tt-skip 2 --untabled 3");
  const test::CliResult untabled_bad = kalah_solve(game + " --untabled 65");
  const test::CliResult tt_skip_bad = kalah_solve(game + " --tt-skip 65");
  const test::CliResult tt_skip_no_db =
      kalah_solve("--rules kalah --pits 4 --stones 3 --no-db --tt-skip 2");
  const test::CliResult none = kalah_solve("--rules kalah --pits 4 --stones 3 --no-db");
  std::system(("rm -rf '" + db + "'").c_str());
  ASSERT_EQ(memory.status, 0) << memory.err;
  ASSERT_EQ(cache.status, 0) << cache.err;
  ASSERT_EQ(lower.status, 0) << lower.err;
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_NE(memory.out.find("loaded into memory"), std::string::npos) << memory.out;
  EXPECT_NE(cache.out.find("opened (block cache)"), std::string::npos) << cache.out;
  EXPECT_NE(memory.out.find("exact up to 10 stones"), std::string::npos) << memory.out;
  EXPECT_NE(lower.out.find("exact up to 6 stones"), std::string::npos) << lower.out;
  EXPECT_EQ(too_many.status, 2);
  EXPECT_NE(too_many.err.find("--db-max-stones"), std::string::npos) << too_many.err;
  // Everything up to the pv line is the answer; nodes and times differ.
  const auto answer = [](const std::string& out) { return out.substr(0, out.find("pv:")); };
  EXPECT_EQ(answer(memory.out), answer(none.out));
  EXPECT_EQ(answer(cache.out), answer(none.out));
  EXPECT_EQ(answer(lower.out), answer(none.out));
  // Skipping the TT for the boards just above the table: the same answer, other node counts.
  ASSERT_EQ(tt_skip0.status, 0) << tt_skip0.err;
  ASSERT_EQ(tt_skip3.status, 0) << tt_skip3.err;
  EXPECT_EQ(answer(tt_skip0.out), answer(none.out));
  EXPECT_EQ(answer(tt_skip3.out), answer(none.out));
  const auto nodes = [](const std::string& out) {
    const auto at = out.find("nodes:      ");
    return at == std::string::npos ? -1LL : std::stoll(out.substr(at + 12));
  };
  EXPECT_NE(nodes(tt_skip0.out), nodes(tt_skip3.out)) << tt_skip0.out << tt_skip3.out;
  // --untabled, the option's former name: the same search after a one-line notice.
  ASSERT_EQ(untabled3.status, 0) << untabled3.err;
  EXPECT_EQ(answer(untabled3.out), answer(tt_skip3.out));
  EXPECT_EQ(nodes(untabled3.out), nodes(tt_skip3.out)) << untabled3.out << tt_skip3.out;
  EXPECT_EQ(untabled3.err, "kalah solve: --untabled is now called --tt-skip; it does the same\n");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;
  EXPECT_EQ(untabled_bad.status, 2);
  EXPECT_NE(untabled_bad.err.find("--untabled"), std::string::npos) << untabled_bad.err;
  EXPECT_EQ(tt_skip_bad.status, 2);
  EXPECT_NE(tt_skip_bad.err.find("--tt-skip"), std::string::npos) << tt_skip_bad.err;
  EXPECT_EQ(tt_skip_no_db.status, 2);
  EXPECT_NE(tt_skip_no_db.err.find("--no-db"), std::string::npos) << tt_skip_no_db.err;
  // Fewer levels answer fewer positions: more of the tree is searched.
  const auto expanded = [](const std::string& out) {
    const auto at = out.find("expanded ");
    return at == std::string::npos ? -1LL : std::stoll(out.substr(at + 9));
  };
  EXPECT_GT(expanded(lower.out), expanded(memory.out)) << lower.out << memory.out;
}

// The best-first top, on every test or (the default on one thread) on the refutations: the same
// answer as the depth-first search, the tree's size reported when a tree grew.
TEST(SolveCli, BestFirstGivesTheSameAnswer) {
  const std::string game = "--no-db --rules kalah --pits 5 --stones 3 --threads 1";
  const test::CliResult plain = kalah_solve(game + " --json --best-first 0");
  const test::CliResult top = kalah_solve(game + " --json --best-first 6 --best-first-budget 64");
  const test::CliResult refutations = kalah_solve(game + " --json --best-first-budget 1");
  const test::CliResult text = kalah_solve(game + " --best-first 6 --best-first-budget 64");
  const test::CliResult flat = kalah_solve(game + " --best-first 0");
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(top.status, 0) << top.err;
  ASSERT_EQ(refutations.status, 0) << refutations.err;
  ASSERT_EQ(text.status, 0) << text.err;
  const auto a = nlohmann::json::parse(plain.out);
  EXPECT_EQ(a.at("best_first_nodes"), 0);
  for (const auto& b : {nlohmann::json::parse(top.out), nlohmann::json::parse(refutations.out)}) {
    for (const char* field : {"complete", "margin", "best_moves", "moves"})
      EXPECT_EQ(a.at(field), b.at(field)) << field;
    EXPECT_GT(b.at("best_first_nodes").get<long long>(), 1);
    EXPECT_NE(a.at("nodes"), b.at("nodes"));
    const auto& tree = b.at("best_first_tree");
    EXPECT_GE(tree.at("nodes").get<long long>(), b.at("best_first_nodes").get<long long>());
    EXPECT_LT(tree.at("expanded").get<long long>(), tree.at("nodes").get<long long>());
    EXPECT_LE(tree.at("repeated").get<long long>(), tree.at("nodes").get<long long>());
    EXPECT_LE(tree.at("repeated_expanded").get<long long>(), tree.at("repeated").get<long long>());
  }
  EXPECT_EQ(a.at("best_first_tree").at("nodes"), 0);
  EXPECT_NE(text.out.find("best-first: at most "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" a position already in their tree; "), std::string::npos) << text.out;
  ASSERT_EQ(flat.status, 0) << flat.err;
  EXPECT_EQ(flat.out.find("best-first:"), std::string::npos) << flat.out;  // no tree grew
}

TEST(SolveCli, BadInputIsOneLineError) {
  for (const char* args :
       {"--no-db 1,2,3/1,2 S", "--no-db '1,x,0/1,1,0 S'", "--no-db --rules foo", "--no-db --pits 0",
        "--no-db --stones 2 '1,1,0/1,1,0 S'", "--no-db --pits 3 '1,1,0/1,1,0 S'",
        "--no-db --max-time -1", "--no-db --tt-mb -1", "--no-db --memo 200",
        "--no-db --db /nonexistent/kalah.db", "--no-db --bogus", "--no-db --db-load all",
        "--no-db --best-first 65", "--no-db --best-first -2",
        "--no-db --best-first 0 --best-first-budget 9",
        "--no-db --best-first 4 --best-first-budget 0"}) {
    const test::CliResult r = kalah_solve(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("kalah solve: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  const test::CliResult missing = kalah_solve("--db /nonexistent/kalah.db --pits 2 --stones 1");
  EXPECT_NE(missing.status, 0);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

}  // namespace
}  // namespace kalah
