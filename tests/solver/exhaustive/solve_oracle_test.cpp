// The exhaustive solver with an oracle at its leaves: the naive one, a real database resident and
// through the block cache, the levels above it that skip the TT, a finished solve's moves first.
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
#include "tests/support/db_test_util.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"
#include "tests/support/vectors.hpp"

#include "tests/support/solve_test_util.hpp"

namespace kalah {
namespace {

using namespace test;

TEST(Solve, OracleGivesIdenticalResults) {
  std::mt19937_64 rng(4242);
  std::uint64_t hits = 0;
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    for (int trial = 0; trial < 40; ++trial) {
      const int m = 2 + int(rng() % 3);
      const Position p = random_position(rules, m, m == 4 ? 1 : 2, rng);
      ReferenceOracle oracle(rules, int(rng() % 6));
      SolveOptions opt = small_options();
      opt.oracle = &oracle;
      const SolveResult with = solve(rules, p, opt);
      const SolveResult without = solve(rules, p, small_options());
      check_result(rules, p, with, naive);
      EXPECT_EQ(with.margin, without.margin);
      EXPECT_EQ(with.best_moves, without.best_moves);
      EXPECT_EQ(with.oracle_hits, std::uint64_t(oracle.calls));
      hits += with.oracle_hits;
    }
  }
  EXPECT_GT(hits, 0u);
}

// A 3-pit table of levels 0..max_stones in a temporary database, and its probe in memory.
struct ResidentTable {
  ResidentTable(const char* name, Rules rules, int max_stones)
      : dir(name), store(dir.str(), true, test::fast_store()), table{rules, 3} {
    BuildOptions build;
    build.table = table;
    build.max_stones = max_stones;
    build_database(store, build);
    probe = std::make_unique<Probe>(store, table, 0, TableLoad::kMemory);
  }
  test::TempDir dir;
  Store store;
  TableId table;
  std::unique_ptr<Probe> probe;
};

// A real database as the oracle, resident (the search ranks boards itself and reads its memory)
// and through the block cache: both give the naive minimax's results.
TEST(Solve, ResidentAndCachedDatabaseGiveExactResults) {
  std::mt19937_64 rng(777);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    ResidentTable db("solve_resident", rules, 9);
    Probe& resident = *db.probe;
    Probe cached(db.store, db.table, 1 << 20);
    ASSERT_TRUE(resident.resident());
    std::uint64_t hits = 0;
    for (int trial = 0; trial < 30; ++trial) {
      const Position p = random_position(rules, 3, 2 + trial % 2, rng);
      SolveOptions opt = small_options();
      opt.tt_skip_above_db = trial % 3 * 2;  // the same TT levels both ways
      opt.oracle = &resident;
      const SolveResult with_resident = solve(rules, p, opt);
      opt.oracle = &cached;
      const SolveResult with_cache = solve(rules, p, opt);
      opt.oracle = &resident;
      opt.tt_skip_above_db = -1;  // automatic
      opt.threads = 2;
      check_result(rules, p, solve(rules, p, opt), naive);
      check_result(rules, p, with_resident, naive);
      check_result(rules, p, with_cache, naive);
      EXPECT_EQ(with_resident.nodes, with_cache.nodes);  // the same search, two ways to probe
      hits += with_resident.oracle_hits;
    }
    EXPECT_GT(hits, 0u) << rules_name(rules);
  }
}

// The levels just above a resident table skip the TT: the search changes, the values do not.
TEST(Solve, LevelsThatSkipTheTTChangeNodesNotValues) {
  std::mt19937_64 rng(4242);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    ResidentTable db("solve_tt_skip", rules, 8);
    Probe& resident = *db.probe;
    std::uint64_t nodes_differ = 0;
    for (int trial = 0; trial < 10; ++trial) {
      const Position p = scattered_position(3, 16, rng);  // 8 stones beyond the table
      SolveOptions opt = small_options();
      opt.oracle = &resident;
      opt.tt_skip_above_db = 0;
      const SolveResult all = solve(rules, p, opt);
      opt.tt_skip_above_db = 4;
      const SolveResult some = solve(rules, p, opt);
      check_result(rules, p, all, naive);  // margin, best moves, an optimal PV (PVs may differ)
      check_result(rules, p, some, naive);
      // Automatic: the gap where the rule set's tuning asks for it (SolveTuning), else none.
      opt.tt_skip_above_db = -1;
      const SolveResult automatic = solve(rules, p, opt);
      EXPECT_EQ(automatic.nodes, tt_skip_tuned(rules) ? some.nodes : all.nodes);
      nodes_differ += all.nodes != some.nodes;
    }
    EXPECT_GT(nodes_differ, 0u) << rules_name(rules);
  }
}

// The perfect-order limit: a finished solve's table as the move source keeps every answer and
// expands fewer nodes (its moves proved each node's bound), and a move source of no use (an empty
// table) changes nothing.
TEST(Solve, AFinishedSolvesMovesFirstKeepTheValuesAndExpandFewerNodes) {
  std::mt19937_64 rng(5757);
  for (Rules rules : kAllRules) {
    std::uint64_t plain_expanded = 0, ordered_expanded = 0;
    for (int trial = 0; trial < 6; ++trial) {
      const Position p = test::random_position(rules, 4, 3, 2 + trial % 3, rng);
      if (is_over(rules, p)) continue;
      const std::string where = std::string(rules_name(rules)) + " " + to_string(p);
      SolveOptions opt = small_options();
      opt.tt_bytes = 1 << 20;
      SolveTT source(opt.tt_bytes);
      opt.tt = &source;
      const SolveResult plain = solve(rules, p, opt);
      opt.tt = nullptr;
      opt.move_source = &source;
      const SolveResult ordered = solve(rules, p, opt);
      ASSERT_TRUE(plain.complete && ordered.complete) << where;
      EXPECT_EQ(ordered.margin, plain.margin) << where;
      EXPECT_EQ(ordered.best_moves, plain.best_moves) << where;
      plain_expanded += plain.expanded;
      ordered_expanded += ordered.expanded;
      SolveTT empty(opt.tt_bytes);
      opt.move_source = &empty;
      const SolveResult unordered = solve(rules, p, opt);
      opt.move_source = nullptr;
      EXPECT_EQ(unordered.nodes, solve(rules, p, opt).nodes) << where;
    }
    EXPECT_LT(ordered_expanded, plain_expanded) << rules_name(rules);
  }
}

// A resident table of another board size answers nothing (and is never read as if it fit).
TEST(Solve, ResidentDatabaseOfAnotherBoardSizeIsNotUsed) {
  test::TempDir dir("solve_other_m");
  Store store(dir.str(), true, test::fast_store());
  BuildOptions build;
  build.table = {Rules::kKalah, 4};
  build.max_stones = 8;
  build_database(store, build);
  Probe resident(store, build.table, 0, TableLoad::kMemory);
  ReferenceMinimax naive(Rules::kKalah);
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 10; ++trial) {
    const Position p = random_position(Rules::kKalah, 3, 3, rng);
    SolveOptions opt = small_options();
    opt.oracle = &resident;
    const SolveResult r = solve(Rules::kKalah, p, opt);
    check_result(Rules::kKalah, p, r, naive);
    EXPECT_EQ(r.oracle_hits, 0u);
  }
}

}  // namespace
}  // namespace kalah
