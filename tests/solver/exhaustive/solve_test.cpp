// The exhaustive solver against a naive minimax, RULES.md values, the value vectors (tests/data),
// its boards, time limits, progress line and node counts.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
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

TEST(Solve, MatchesNaiveMinimaxOnRandomPositions) {
  std::mt19937_64 rng(12345);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    for (int m = 1; m <= 4; ++m) {
      for (int trial = 0; trial < 40; ++trial) {
        const int k = 1 + int(rng() % (m <= 2 ? 4 : 5 - m));
        const Position p = trial % 2 ? random_position(rules, m, k, rng)
                                     : scattered_position(m, int(rng() % (m <= 2 ? 11 : 9)), rng);
        check_result(rules, p, solve(rules, p, small_options()), naive);
      }
    }
  }
}

TEST(Solve, ReferenceBoardGivesTheSameResults) {
  // The byte board's own sowing must not change anything: compare with play_move's board.
  std::mt19937_64 rng(777);
  for (Rules rules : kAllRules) {
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      for (int trial = 0; trial < 30; ++trial) {
        const int m = 1 + int(rng() % 4);
        const Position p = random_position(rules, m, 1 + int(rng() % 2), rng);
        const SolveResult a = solve_detail::solve_on<solve_detail::SolveBoard<R, ByteArrayBoard<>>>(
            p, small_options());
        const SolveResult b =
            solve_detail::solve_on<solve_detail::SolveBoard<R, WideBoard>>(p, small_options());
        EXPECT_EQ(a.margin, b.margin) << to_string(p);
        EXPECT_EQ(a.best_moves, b.best_moves) << to_string(p);
        EXPECT_EQ(a.pv, b.pv) << to_string(p);
      }
    });
  }
}

// Calls f(position) for every arrangement of n stones in the 2m pits (S to move, empty kalahs).
template <class F>
void for_each_arrangement(Position& p, int cell, int n, F&& f) {
  const int m = p.m;
  const int ring_cell = cell < m ? cell : cell + 1;  // skip S's kalah
  if (cell == 2 * m - 1) {
    p.cell[ring_cell] = Stones(n);
    f(static_cast<const Position&>(p));
    return;
  }
  for (int v = 0; v <= n; ++v) {
    p.cell[ring_cell] = Stones(v);
    for_each_arrangement(p, cell + 1, n - v, f);
  }
}
template <class F>
void for_each_arrangement(int m, int n, F&& f) {
  Position p = start_position(m, 0);
  for_each_arrangement(p, 0, n, f);
}

// Plays every move of p on board type Fast and on play_move's board and compares the results:
// gain, extra turn, the pits, the pits seen as cells, the mover's stones and the key.
template <class R, class Fast>
void check_board_moves(const Position& p) {
  for (int i = 0; i < p.m; ++i) {
    if (p.own_pit(i) == 0) continue;
    Fast fast(p);
    solve_detail::SolveBoard<R, WideBoard> ref(p);
    bool again_fast, again_ref;
    const int gain_fast = fast.play(i, again_fast);
    const int gain_ref = ref.play(i, again_ref);
    ASSERT_EQ(gain_fast, gain_ref) << to_string(p) << " pit " << i + 1;
    ASSERT_EQ(again_fast, again_ref) << to_string(p) << " pit " << i + 1;
    const Position after = ref.position();
    ASSERT_EQ(fast.position(), after) << to_string(p) << " pit " << i + 1;
    for (int c = 0; c < 2 * p.m + 2; ++c)
      ASSERT_EQ(int(fast.cells()[c]), int(after.cell[c])) << to_string(p) << " cell " << c;
    ASSERT_EQ(fast.own_stones(), ref.own_stones()) << to_string(p) << " pit " << i + 1;
    ASSERT_EQ(fast.key(), Fast(after).key());
  }
}

template <class R>
void check_solver_board_moves(const Position& p) {
  check_board_moves<R, solve_detail::SolveBoard<R, ByteArrayBoard<>>>(p);
  switch (p.m) {  // the sizes solve() gives a register board
    case 4:
      check_board_moves<R, solve_detail::SolveBoard<R, RegisterBoard<4>>>(p);
      break;
    case 5:
      check_board_moves<R, solve_detail::SolveBoard<R, RegisterBoard<5>>>(p);
      break;
    case 6:
      check_board_moves<R, solve_detail::SolveBoard<R, RegisterBoard<6>>>(p);
      break;
    default:
      break;
  }
}

// Defence rounds (Search::set_defence_rounds) abandon and resume searches: with budgets of a few
// nodes, on either side, every null-window test still answers as the minimax, and a plain search
// over the same TT afterwards too (an abandoned search stored no bound).
TEST(Solve, DefenceRoundsAnswerEveryTestAsMinimaxAndStoreOnlyProvenBounds) {
  std::mt19937_64 rng(20261127);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      using B = solve_detail::SolveBoard<R, ByteArrayBoard<>>;
      int abandoned = 0;
      for (int trial = 0; trial < 16; ++trial) {
        const Position p = scattered_position(4 + trial % 2, 8 + int(rng() % 5), rng);
        if (is_over(rules, p)) continue;
        const int n = p.pit_stones();
        const int future = naive.margin(p) - p.kalah_difference();
        SolveTT tt(1 << 20);
        solve_detail::Search<B> s(solve_detail::TTView(tt, 0), nullptr, nullptr, nullptr, 0);
        for (const int side : {0, 1, -1}) {
          s.set_defence_rounds(side, 8, 1 + trial % 3);
          for (int beta = -n + 1; beta <= n + 1; beta += 2) {
            const std::uint64_t before = s.nodes();
            const int r = s.search(B(p), n, beta - 1, beta);
            const std::string where =
                to_string(p) + " side " + std::to_string(side) + " beta " + std::to_string(beta);
            ASSERT_FALSE(s.stopped()) << where;
            if (r >= beta) {
              ASSERT_GE(future, r) << where;
            } else {
              ASSERT_LE(future, r) << where;
            }
            ASSERT_EQ(r >= beta, future >= beta) << where;
            abandoned += side >= 0 && s.nodes() - before > 8;
          }
        }
      }
      EXPECT_GT(abandoned, 20) << rules_name(rules);  // searches large enough to run past a budget
    });
  }
}

// An error in any search thread (here the oracle's, as from a damaged table) ends the solve with
// that error in the caller, at any point of the solve (the root's tests on every thread, the moves
// shared out one per thread, the analysis of every move), and the process goes on.
TEST(Solve, AnErrorInAnySearchThreadReachesTheCaller) {
  for (Rules rules : kAllRules) {
    // Starts whose analyses take 10^4 to 10^6 nodes.
    const Position p = start_position(rules == Rules::kWetherell ? 4 : 5, 3);
    SolveOptions opt;
    opt.tt_bytes = 1 << 20;
    opt.memo_stones = 0;
    opt.every_move = true;
    FailingOracle whole(rules, 8, -1);  // never fails: counts the calls of a whole analysis
    opt.oracle = &whole;
    opt.threads = 1;
    const SolveResult want = solve(rules, p, opt);
    ASSERT_TRUE(want.complete);
    ASSERT_GT(whole.calls, 1000) << rules_name(rules);
    for (const int threads : {2, 3}) {
      for (const double at : {0.0, 0.05, 0.3, 0.6}) {
        FailingOracle failing(rules, 8, 1 + long(at * double(whole.calls)));
        opt.oracle = &failing;
        opt.threads = threads;
        const std::string where = std::string(rules_name(rules)) + " threads " +
                                  std::to_string(threads) + " at " + std::to_string(at);
        try {
          solve(rules, p, opt);
          ADD_FAILURE() << "no error: " << where;
        } catch (const DbError& e) {
          EXPECT_NE(std::string(e.what()).find("level 8 block 2"), std::string::npos) << where;
        }
      }
    }
    // The same solver, after those errors, still answers.
    FailingOracle again(rules, 8, -1);
    opt.oracle = &again;
    const SolveResult after = solve(rules, p, opt);
    EXPECT_EQ(after.margin, want.margin) << rules_name(rules);
    EXPECT_EQ(after.moves, want.moves) << rules_name(rules);
  }
}

TEST(Solve, RegisterBoardSolvesAsMinimaxAndTheByteArrayBoard) {
  // solve() gives 6-pit positions the register board: its results must be exact (naive minimax,
  // the PV replayed) and agree with the byte board's (PVs may differ among equal moves).
  std::mt19937_64 rng(4242);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      for (int trial = 0; trial < 12; ++trial) {
        const Position p = scattered_position(6, 6 + int(rng() % 5), rng);
        const SolveResult a = solve_detail::solve_on<solve_detail::SolveBoard<R, RegisterBoard<6>>>(
            p, small_options());
        const SolveResult b = solve_detail::solve_on<solve_detail::SolveBoard<R, ByteArrayBoard<>>>(
            p, small_options());
        check_result(rules, p, a, naive);
        EXPECT_EQ(a.margin, b.margin) << to_string(p);
        EXPECT_EQ(a.best_moves, b.best_moves) << to_string(p);
      }
    });
  }
}

TEST(SolveBoard, ByteArrayAndRegisterBoardMovesEqualWideBoardOnEverySmallBoard) {
  for (Rules rules : kAllRules) {
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      for (int m = 1; m <= 6; ++m) {
        const int max_n = m <= 3 ? 10 : (m == 4 ? 7 : 5);
        for (int n = 0; n <= max_n; ++n)
          for_each_arrangement(m, n, [](const Position& p) { check_solver_board_moves<R>(p); });
      }
    });
  }
}

TEST(SolveBoard, ByteArrayAndRegisterBoardMovesEqualWideBoardOnRandomBigBoards) {
  std::mt19937_64 rng(99);
  for (Rules rules : kAllRules) {
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      for (int trial = 0; trial < 3000; ++trial) {
        const int m = 1 + int(rng() % kMaxPits);
        const int n = int(rng() % 256);
        Position p = scattered_position(m, n, rng);
        if (trial % 3 == 0) p.own_pit(int(rng() % m)) += Stones(rng() % (256 - n));  // laps
        check_solver_board_moves<R>(p);
      }
    });
  }
}

TEST(Solve, RulesSmallBoardStartValues) {
  struct Case {
    int m, k, margin;
  };
  const Case cases[] = {{1, 2, 4}, {1, 3, 2}, {2, 3, 6}, {3, 3, -2},
                        {4, 1, 0}, {4, 2, 0}, {4, 3, 0}};
  for (const Case& c : cases) {
    const SolveResult r = solve(Rules::kWetherell, start_position(c.m, c.k), small_options());
    ASSERT_TRUE(r.complete);
    EXPECT_EQ(r.margin, c.margin) << "m=" << c.m << " k=" << c.k;
  }
}

TEST(Solve, GameOverPositionHasItsFinalMargin) {
  const Position p = parse_position("0,0,0,0,0,0,10/1,2,0,0,0,3,9 S");
  const SolveResult r = solve(Rules::kWetherell, p, {});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.margin, -5);
  EXPECT_TRUE(r.best_moves.empty());
  EXPECT_TRUE(r.pv.empty());
  // Under kalah rules an empty opposing side ends the game too.
  const Position q = parse_position("1,2,0,4/0,0,0,7 N");
  const SolveResult rq = solve(Rules::kKalah, q, {});
  ASSERT_TRUE(rq.complete);
  EXPECT_EQ(rq.margin, 7 - 7);
}

// Every vector of `file` solved on one thread and on four (the threads share the TT, the busy
// marks and each other's settled nodes), to the vector's margin.
void check_value_vectors(Rules rules, const std::string& file, int max_m) {
  for (const int threads : {1, 4}) {
    SolveOptions opt;
    opt.tt_bytes = 4 << 20;
    opt.threads = threads;
    int checked = 0;
    for (const auto& row : test::read_vector_file(file)) {
      ASSERT_EQ(row.size(), 3u) << "malformed line in " << file;
      const Position p = parse_position(row[0] + " " + row[1]);
      if (p.m > max_m) continue;
      const SolveResult r = solve(rules, p, opt);
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.margin, std::stoi(row[2]))
          << file << ": " << row[0] << " " << row[1] << ", " << threads << " threads";
      ++checked;
    }
    EXPECT_GT(checked, 0);
  }
}

// Every line, 6-pit ones included (about a second in all on one thread in a release build).
constexpr int kVectorMaxPits = kMaxPits;

TEST(Solve, WetherellValueVectors) {
  check_value_vectors(Rules::kWetherell, "values-wetherell.txt", kVectorMaxPits);
}
TEST(Solve, KalahValueVectors) {
  check_value_vectors(Rules::kKalah, "values-kalah.txt", kVectorMaxPits);
}
TEST(Solve, KalahEmptyCaptureValueVectors) {
  check_value_vectors(Rules::kKalahEmptyCapture, "values-kalah-empty-capture.txt", kVectorMaxPits);
}

TEST(Solve, TimeLimitGivesBoundsNotAValue) {
  // The first time check comes after some thousands of nodes: m=4, k=3 needs more than that.
  SolveOptions opt = small_options();
  opt.max_seconds = 1e-9;
  const SolveResult r = solve(Rules::kWetherell, start_position(4, 3), opt);
  EXPECT_FALSE(r.complete);
  EXPECT_LT(r.lower, r.upper);
  EXPECT_LE(r.lower, 0);  // RULES.md: a draw
  EXPECT_GE(r.upper, 0);
  EXPECT_TRUE(r.best_moves.empty());
  EXPECT_TRUE(r.pv.empty());
}

// A solve stopped once its first test at the root has proven a bound returns that bound, not the
// game's own: what a stop gives is what was proven.
TEST(Solve, AStoppedSolveKeepsTheBoundsItProved) {
  const Position start = start_position(6, 2);  // its first test is a small part of its solve
  const int stones = 2 * 6 * 2;
  std::atomic<bool> cancel{false};
  int proven_lower = -stones, proven_upper = stones, calls = 0;
  SolveOptions opt = small_options();
  opt.tt_bytes = 1 << 20;
  opt.cancel = &cancel;
  opt.on_proven = [&](const SolveResult& so_far) {
    ++calls;
    proven_lower = so_far.lower;
    proven_upper = so_far.upper;
    cancel = true;
  };
  const SolveResult r = solve(Rules::kWetherell, start, opt);
  ASSERT_GT(calls, 0);
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(proven_lower > -stones || proven_upper < stones)
      << proven_lower << " " << proven_upper;
  EXPECT_GE(r.lower, proven_lower);
  EXPECT_LE(r.upper, proven_upper);
  EXPECT_LE(r.lower, 0);  // RULES.md: a draw
  EXPECT_GE(r.upper, 0);
}

TEST(Solve, TimeLimitStopsALongSolve) {
  // Wetherell 6 pits, 3 stones without a database takes far longer than the limit: the solve
  // returns (ctest's timeout catches one that does not) with proven bounds around the draw.
  for (int threads : {1, 2}) {
    SolveOptions opt;
    opt.tt_bytes = 1 << 20;
    opt.max_seconds = 0.02;
    opt.threads = threads;
    const SolveResult r = solve(Rules::kWetherell, start_position(6, 3), opt);
    EXPECT_FALSE(r.complete) << threads;
    EXPECT_LT(r.lower, r.upper) << threads;
    EXPECT_LE(r.lower, 0) << threads;  // RULES.md: a draw
    EXPECT_GE(r.upper, 0) << threads;
  }
}

// The status line says where the search is: each step of the line is a pit holding stones on a
// 6-pit board, ranked among its node's moves (1 <= rank <= moves <= 6), and the nodes it reports
// (every thread's) never exceed the solve's total.
TEST(Solve, ProgressLineNamesTheMovesBeingSearched) {
  for (int threads : {1, 2}) {
    std::vector<std::string> lines;
    SolveOptions opt;
    opt.tt_bytes = 1 << 20;
    opt.max_seconds = 2.5;
    opt.threads = threads;
    opt.progress = [&](const std::string& line) { lines.push_back(line); };
    const SolveResult r = solve(Rules::kWetherell, start_position(6, 3), opt);
    ASSERT_FALSE(lines.empty()) << threads;
    for (const std::string& line : lines) {
      const std::size_t at = line.find(", line ");
      ASSERT_NE(at, std::string::npos) << line;
      std::istringstream steps(line.substr(at + 7));
      int pit, rank, moves, count = 0;
      char open, slash, close;
      while (steps >> pit >> open >> rank >> slash >> moves >> close) {
        EXPECT_EQ(std::string() + open + slash + close, "(/)") << line;
        EXPECT_TRUE(pit >= 1 && pit <= 6 && rank >= 1 && rank <= moves && moves <= 6) << line;
        ++count;
      }
      EXPECT_TRUE(count >= 1 && count <= 6) << line;
      double nodes = 0;
      ASSERT_EQ(std::sscanf(line.c_str(), "solve: %*f s, %lf nodes", &nodes), 1) << line;
      EXPECT_LE(nodes, double(r.nodes) * 1.001) << line;
    }
  }
}

// --tt-mb 0's size (solve.hpp): 64 MiB up to 24 stones in pits beyond the table, doubled every 2;
// from 48 stones in pits 64 MiB up to 20, doubled a stone; 16 MiB up to 28 with the levels just
// above skipping the TT, doubled every 2; at most 2 GiB and a quarter of the memory.
TEST(Solve, TheAutomaticTableGrowsWithTheStonesBeyondTheDatabase) {
  const Position etude = start_position(6, 4), three = start_position(6, 3);  // 48, 36 in pits
  const std::size_t quarter = std::size_t(physical_memory_bytes() / 4 >> 20) << 20;
  auto mib = [&](std::size_t n) { return std::min(n << 20, quarter); };
  const std::vector<std::tuple<Position, int, bool, std::size_t>> rows = {
      {etude, 32, false, 64},   {etude, 28, false, 64},   {etude, 27, false, 128},
      {etude, 26, false, 256},  {etude, 24, false, 1024}, {etude, 23, false, 2048},
      {etude, -1, false, 2048}, {three, 12, false, 64},   {three, 11, false, 128},
      {three, 10, false, 128},  {three, 9, false, 256},   {three, -1, false, 2048},
      {etude, 24, true, 16},    {etude, 20, true, 16},    {etude, 19, true, 32},
      {etude, 14, true, 128},   {etude, -1, true, 2048}};
  for (const auto& [p, table, tt_skip, expected] : rows)
    EXPECT_EQ(auto_tt_bytes(p, table, tt_skip), mib(expected))
        << p.pit_stones() << " in pits, table " << table << (tt_skip ? ", tt-skip" : "");
}

TEST(Solve, ValueOnlySolveSkipsTheMoves) {
  SolveOptions opt = small_options();
  opt.find_moves = false;
  const SolveResult r = solve(Rules::kWetherell, start_position(3, 3), opt);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.margin, -2);  // RULES.md
  EXPECT_TRUE(r.best_moves.empty());
  EXPECT_TRUE(r.pv.empty());
}

TEST(Solve, NodeCountsAreDeterministic) {
  const Position p = start_position(4, 3);
  const SolveResult a = solve(Rules::kKalah, p, small_options());
  const SolveResult b = solve(Rules::kKalah, p, small_options());
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.pv, b.pv);
}

// Expanded nodes are the visited ones whose moves were searched: without a memo (small_options)
// every other visited node is a root of the driver's searches or a child of an expanded one.
TEST(Solve, ExpandedNodesAreTheVisitedNodesWhoseMovesWereSearched) {
  for (const Rules rules : kAllRules) {
    const int m = 4;
    const SolveResult r = solve(rules, start_position(m, 3), small_options());
    ASSERT_TRUE(r.complete);
    EXPECT_GT(r.expanded, 0u);
    EXPECT_LT(r.expanded, r.nodes);
    EXPECT_LE(r.nodes, std::uint64_t(m) * r.expanded + 1000) << rules_name(rules);
  }
  const SolveResult over =
      solve(Rules::kWetherell, parse_position("0,0,0,0,0,0,10/1,2,0,0,0,3,9 S"));
  EXPECT_EQ(over.expanded, 0u);
}

// on_test sees the root's tests: MTD(f)'s first, then each move's (with every_move, until each
// is exact, every one through the best-first top); each proves a bound the answer holds; their
// nodes are the solve's but the PV's; the same answer and nodes as without it; it needs one
// thread.
TEST(Solve, OnTestSeesEachRootTestOnOneThread) {
  const Position p = parse_position("3,0,4,4,1/4,3,0,4,3 N");  // kalahs 1 and 3: kd != 0
  for (const bool every_move : {false, true}) {
    std::vector<RootTest> tests;
    SolveOptions opt = small_options();
    opt.threads = 1;
    opt.every_move = every_move;
    const SolveResult plain = solve(Rules::kKalah, p, opt);
    opt.on_test = [&tests](const RootTest& t) { tests.push_back(t); };
    const SolveResult traced = solve(Rules::kKalah, p, opt);
    ASSERT_TRUE(traced.complete);
    EXPECT_EQ(traced.margin, plain.margin);
    EXPECT_EQ(traced.nodes, plain.nodes);
    ASSERT_GE(tests.size(), 2u);
    EXPECT_EQ(tests[0].pit, 0);
    std::uint64_t nodes = 0;
    bool moves_begun = false;
    for (const RootTest& t : tests) {
      nodes += t.nodes;
      EXPECT_EQ(t.holds, t.bound >= t.level);
      EXPECT_LE(t.expanded, t.nodes);
      // The analysis on one thread runs every test through its top; a solve its first depth-first.
      if (every_move) {
        EXPECT_TRUE(t.best_first) << t.pit << " " << t.level;
      } else if (&t == &tests[0]) {
        EXPECT_FALSE(t.best_first) << "MTD(f)'s test at its guess is depth-first";
      }
      moves_begun |= t.pit != 0;
      EXPECT_TRUE(t.pit != 0 || !moves_begun) << "the root's tests come before the moves'";
      int lower = traced.margin, upper = traced.margin;
      if (t.pit != 0) {
        const auto m = std::find_if(traced.moves.begin(), traced.moves.end(),
                                    [&t](const MoveBound& b) { return b.pit == t.pit; });
        ASSERT_NE(m, traced.moves.end()) << t.pit;
        lower = m->lower;
        upper = m->upper;
      }
      // Each test proved a bound the answer's (as tight or tighter) agrees with.
      if (t.holds) {
        EXPECT_GE(lower, t.bound) << t.pit;
      } else {
        EXPECT_LE(upper, t.bound) << t.pit;
      }
    }
    EXPECT_TRUE(moves_begun);
    EXPECT_LE(nodes, traced.nodes);
    EXPECT_GT(nodes, traced.nodes / 2) << "the tests are most of a solve";
    if (every_move) {
      for (const MoveBound& m : traced.moves) EXPECT_TRUE(m.exact()) << m.pit;
    }
    opt.threads = 2;
    EXPECT_THROW(solve(Rules::kKalah, p, opt), std::invalid_argument);
  }
}

}  // namespace
}  // namespace kalah
