// The exhaustive solver on several threads: the same values and moves, the first guess beside the
// helpers, tests on every thread, settled nodes, and errors carried to the caller.
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

// Several threads sharing the TT (and the memo) prove the same values and moves, more threads
// than moves included (idle threads join the moves still being settled).
TEST(Solve, ThreadsGiveExactResults) {
  std::mt19937_64 rng(2718);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    for (int trial = 0; trial < 40; ++trial) {
      const int m = 3 + trial % 2;
      const Position p = random_position(rules, m, m == 3 ? 3 : 2, rng);
      SolveOptions opt = small_options();
      opt.threads = 2 + trial % 4;
      opt.memo_stones = trial % 3 == 0 ? 4 : 0;
      check_result(rules, p, solve(rules, p, opt), naive);
    }
  }
}

// With helpers, MTD(f)'s first test against 0 starts while the engine finds the first guess: a
// guess that gives the same test joins it, another stops it. Either way the answers are those of
// one thread; the starts below have guesses of both kinds. A guess 40 plies deep usually takes
// longer than these solves: the helpers then go on with MTD(f)'s next tests until the bounds
// meet, which stops the engine.
TEST(Solve, TheFirstGuessBesideTheHelpersKeepsTheAnswers) {
  const std::vector<std::tuple<Rules, int, int>> starts = {{Rules::kWetherell, 4, 3},
                                                           {Rules::kKalah, 4, 3},
                                                           {Rules::kKalah, 6, 2},
                                                           {Rules::kKalahEmptyCapture, 4, 3},
                                                           {Rules::kKalahEmptyCapture, 5, 2},
                                                           {Rules::kKalahEmptyCapture, 6, 2},
                                                           {Rules::kKalahEmptyCapture, 5, 3}};
  int joined = 0, stopped = 0;
  for (const auto& [rules, m, k] : starts) {
    const Position p = start_position(m, k);
    ASSERT_GE(p.pit_stones(), 20) << "the engine's guess needs 20 stones in pits";
    SolveOptions opt;
    opt.tt_bytes = std::size_t(1) << 24;
    opt.every_move = true;
    opt.threads = 1;
    // One thread's first test is the guess rounded up to the parity of the stones in pits (the
    // kalah difference is 0): the test of guess 0 or another.
    const int guess = solve_guess(rules, p, opt), parity = p.pit_stones() & 1;
    (round_up(guess, parity) == round_up(0, parity) ? joined : stopped) += 1;
    const SolveResult want = solve(rules, p, opt);
    ASSERT_TRUE(want.complete);
    for (const int threads : {2, 4}) {
      for (const int depth : {1, 16, 40}) {
        opt.threads = threads;
        opt.guess_depth = depth;
        const SolveResult r = solve(rules, p, opt);
        const std::string where = std::string(rules_name(rules)) + " " + to_string(p) +
                                  " threads " + std::to_string(threads) + " guess depth " +
                                  std::to_string(depth);
        ASSERT_TRUE(r.complete) << where;
        EXPECT_EQ(r.margin, want.margin) << where;
        EXPECT_EQ(r.best_moves, want.best_moves) << where;
        EXPECT_EQ(r.moves, want.moves) << where;
      }
    }
  }
  EXPECT_GT(joined, 0);
  EXPECT_GT(stopped, 0);
}

// SearchTeam::test on several threads: each answer is a proof of the test, the next test starts
// afresh after the stop that ended the one before, and stop() is raised once a test is over.
TEST(Solve, ATestOnEveryThreadIsAProof) {
  const Position p = start_position(4, 3);
  const int margin = solve(Rules::kKalah, p, small_options()).margin;  // the future: kd is 0
  with_rules(Rules::kKalah, [&](auto policy) {
    using B = solve_detail::SolveBoard<decltype(policy), ByteArrayBoard<>>;
    for (const int beta : {margin, margin + 2}) {
      solve_detail::SolveTT tt(std::size_t(1) << 20);
      solve_detail::SearchTeam<B> team(
          3, solve_detail::TTView(tt, 0), static_cast<ExactOracle*>(nullptr),
          static_cast<solve_detail::ExactMemo<B>*>(nullptr), static_cast<const Probe*>(nullptr), 0);
      team.set_limits(std::nullopt, nullptr, nullptr);
      const B b(p);
      const int n = p.pit_stones();
      const auto proves = [&](const solve_detail::Test& r) {
        return r.has_value() && (*r >= beta) == (margin >= beta);
      };
      const std::string at = "beta " + std::to_string(beta);
      for (int round = 0; round < 2; ++round) {
        EXPECT_TRUE(proves(team.test(b, n, beta))) << at << ", test " << round;
        EXPECT_TRUE(team.stop()->load()) << at << ", test " << round;
      }
    }
  });
}

// With several threads, a search inside a node that another thread has settled (its TT entry
// now decides the node's window) returns to that node and answers from the entry: here the
// "other thread" is the report hook, which stores an exact future for the root that contradicts
// the true one, and the test's answer must follow it. Without the store, the same search answers
// as the minimax.
TEST(Solve, ANodeAnotherThreadSettledIsAnsweredFromItsEntry) {
  const Position p = start_position(6, 3);
  const int future = solve(Rules::kKalah, p, small_options()).margin;  // kd is 0
  ASSERT_NE(future + 4, 0);  // the claimed value below differs from a halted search's 0
  const Position other = start_position(5, 3);
  const int other_future = solve(Rules::kKalah, other, small_options()).margin;
  ASSERT_NE(other_future, 0);
  with_rules(Rules::kKalah, [&](auto policy) {
    using B = solve_detail::SolveBoard<decltype(policy), ByteArrayBoard<>>;
    const B b(p);
    const int n = p.pit_stones();
    std::uint64_t whole = 0;  // the nodes of the search without the store
    for (const bool settle : {false, true}) {
      solve_detail::SolveTT tt(std::size_t(1) << 20);
      solve_detail::Search<B> s(solve_detail::TTView(tt, 0), nullptr, nullptr, nullptr, 0);
      std::vector<std::uint64_t> busy(solve_detail::Search<B>::kBusySlots, 0);
      const std::atomic<bool> stop{false};
      s.set_parallel(&stop, busy.data());
      const int claimed = future + 4;  // the other thread's exact value, beyond the window
      int reports = 0;
      s.set_limits(
          std::nullopt, nullptr,
          [&] {
            if (settle && ++reports == 1)
              solve_detail::TTView(tt, 0).store(b.key(), claimed, claimed, 0, 60);
          },
          0.0);
      const int beta = future + 1;  // the truth fails this test, the claimed value passes it
      const int r = s.search(b, n, beta - 1, beta);
      ASSERT_FALSE(s.stopped());
      if (settle) {
        EXPECT_EQ(r, claimed);
        EXPECT_LT(s.nodes(), whole) << "the search went on below the settled root";
        // The next search of the same thread (no restart(), as at the root) is not abandoned: it
        // answers a test that 0 would fail.
        const int beta2 = other_future > 0 ? other_future : other_future + 1;
        const int r2 = s.search(B(other), other.pit_stones(), beta2 - 1, beta2);
        EXPECT_EQ(r2 >= beta2, other_future >= beta2);
      } else {
        EXPECT_LT(r, beta);
        EXPECT_GE(r, future);
        whole = s.nodes();
        ASSERT_GT(whole, 4u << 14) << "too few nodes for the report to run twice";
      }
    }
  });
}

// Idle time counts the helpers' waiting only: none with one thread; with more, some (the principal
// variation is one thread's) but less than the helpers' whole share of the solve's time (every
// helper searches in the MTD(f) tests).
TEST(Solve, IdleSecondsAreTheHelpersWaiting) {
  const Position p = start_position(4, 3);
  SolveOptions opt = small_options();
  opt.threads = 1;
  EXPECT_EQ(solve(Rules::kKalah, p, opt).idle_seconds, 0.0);
  for (const int threads : {2, 4}) {
    opt.threads = threads;
    const SolveResult r = solve(Rules::kKalah, p, opt);
    ASSERT_TRUE(r.complete);
    EXPECT_GT(r.idle_seconds, 0.0) << threads;
    EXPECT_LT(r.idle_seconds, (threads - 1) * r.seconds) << threads;
  }
}

TEST(Solve, OracleAnswersAboveItsLevelsNearTheRootAreUsed) {
  // A book holding the start and its children: the solve asks it and stays correct.
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    const Position start = start_position(3, 2);
    std::vector<Position> book{start};
    for (int pit = 1; pit <= 3; ++pit) {
      Position c = start;
      play_move(rules, c, pit);
      book.push_back(c);
    }
    BookOracle oracle(rules, 2, book);
    SolveOptions opt = small_options();
    opt.oracle = &oracle;
    const SolveResult r = solve(rules, start, opt);
    check_result(rules, start, r, naive);
    EXPECT_GT(oracle.book_hits, 0) << rules_name(rules);
  }
}

// The memo answers the positions of its levels: the answers are the minimax's, and the search
// expands fewer positions than without it (it does not expand what the memo answers).
TEST(Solve, ExactMemoGivesIdenticalResults) {
  std::mt19937_64 rng(31337);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    std::uint64_t expanded_with = 0, expanded_without = 0;
    for (int trial = 0; trial < 40; ++trial) {
      const int m = 1 + int(rng() % 4);
      const Position p = trial % 2 ? random_position(rules, m, m <= 2 ? 3 : 5 - m, rng)
                                   : scattered_position(m, 6 + int(rng() % 5), rng);
      SolveOptions opt = small_options();
      opt.memo_stones = 1 + int(rng() % 7);
      ReferenceOracle oracle(rules, int(rng() % 5));
      if (trial % 3 == 0) opt.oracle = &oracle;  // the memo asks the oracle below its levels
      const SolveResult with = solve(rules, p, opt);
      check_result(rules, p, with, naive);
      opt.memo_stones = 0;
      const SolveResult without = solve(rules, p, opt);
      EXPECT_EQ(without.margin, with.margin) << rules_name(rules) << " trial " << trial;
      expanded_with += with.expanded;
      expanded_without += without.expanded;
    }
    EXPECT_LT(expanded_with, expanded_without) << rules_name(rules);
  }
}

TEST(Solve, DefaultOptionsSolveTheValueVectorsOfFourPits) {
  // The automatic memo and the default TT sizes, on every 4-pit vector of one file each.
  for (Rules rules : kAllRules) {
    const std::string file = std::string("values-") + std::string(rules_name(rules)) + ".txt";
    int checked = 0;
    for (const auto& row : test::read_vector_file(file)) {
      const Position p = parse_position(row[0] + " " + row[1]);
      if (p.m != 4 || ++checked > 20) continue;
      const SolveResult r = solve(rules, p);
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.margin, std::stoi(row[2])) << file << ": " << row[0] << " " << row[1];
    }
    EXPECT_GT(checked, 0) << file;
  }
}

// A TT that starts at 1 KiB and doubles as it fills (to 1 MiB) moves entries between buckets
// while the search runs, on one thread and on two: every answer is the naive minimax's.
TEST(Solve, AGrowingTableAnswersAsMinimaxOnOneThreadAndTwo) {
  std::mt19937_64 rng(4242);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    for (int m = 3; m <= 4; ++m) {
      for (int trial = 0; trial < 8; ++trial) {
        const Position p = random_position(rules, m, m == 3 ? 3 : 2, rng);
        SolveOptions opt = small_options();
        opt.tt_bytes = 1 << 20;
        opt.tt_start_bytes = 1 << 10;
        opt.threads = 1 + trial % 2;
        check_result(rules, p, solve(rules, p, opt), naive);
      }
    }
  }
}

}  // namespace
}  // namespace kalah
