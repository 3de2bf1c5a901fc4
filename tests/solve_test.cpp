// The exhaustive solver against a naive minimax, RULES.md values, the value vectors (tests/data).
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

#include "build.hpp"
#include "cli_run.hpp"
#include "db_error.hpp"
#include "db_test_util.hpp"
#include "move.hpp"
#include "physical_memory.hpp"
#include "probe.hpp"
#include "random_positions.hpp"
#include "reference.hpp"
#include "root_solver.hpp"
#include "solve.hpp"
#include "vectors.hpp"

namespace kalah {
namespace {

const std::vector<Rules> kAllRules = test::registered_rules();

// Plain minimax over whole-game margins, memoised on the full cells (kalahs included).
class Naive {
 public:
  explicit Naive(Rules rules) : rules_(rules) {}

  int margin(const Position& p) {
    if (is_over(rules_, p)) return final_margin(p);
    const std::vector<int> key(p.cell.begin(), p.cell.begin() + 2 * p.m + 2);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    int best = -1000000;
    for (int pit = 1; pit <= p.m; ++pit)
      if (p.own_pit(pit - 1) > 0) best = std::max(best, move_value(p, pit));
    memo_.emplace(key, best);
    return best;
  }

  // The margin of p for its side to move when it plays `pit` and both sides then play perfectly.
  int move_value(const Position& p, int pit) {
    Position c = p;
    const bool again = play_move(rules_, c, pit);
    return again ? margin(c) : -margin(c);
  }

  std::vector<int> best_moves(const Position& p) {
    std::vector<int> out;
    if (is_over(rules_, p)) return out;
    const int v = margin(p);
    for (int pit = 1; pit <= p.m; ++pit)
      if (p.own_pit(pit - 1) > 0 && move_value(p, pit) == v) out.push_back(pit);
    return out;
  }

 private:
  Rules rules_;
  std::map<std::vector<int>, int> memo_;
};

// An exact oracle backed by the naive minimax, covering positions with <= max stones in pits.
class NaiveOracle : public ExactOracle {
 public:
  NaiveOracle(Rules rules, int max) : naive_(rules) { max_stones_ = max; }
  std::optional<int> future(const Position& p) override {
    if (p.pit_stones() > max_stones_) return std::nullopt;
    ++calls;
    Position q = p;
    q.own_kalah() = q.opp_kalah() = 0;
    return naive_.margin(q);
  }
  int calls = 0;

 private:
  Naive naive_;
};

// NaiveOracle's answers from any thread (under a lock) until its `limit`-th call, which throws
// DbError as a damaged block of a table would.
class FailingOracle : public NaiveOracle {
 public:
  FailingOracle(Rules rules, int max, long limit) : NaiveOracle(rules, max), limit_(limit) {}
  std::optional<int> future(const Position& p) override {
    std::lock_guard lock(mutex_);
    if (p.pit_stones() <= max_stones_ && calls + 1 == limit_)
      throw DbError("test table: level 8 block 2 is corrupt (injected)");
    return NaiveOracle::future(p);
  }

 private:
  long limit_;
  std::mutex mutex_;
};

// NaiveOracle plus a "book": it also answers the positions of `book` whatever their stones.
class BookOracle : public NaiveOracle {
 public:
  BookOracle(Rules rules, int max, std::vector<Position> book)
      : NaiveOracle(rules, max), naive_(rules), book_(std::move(book)) {}
  std::optional<int> future(const Position& p) override {
    for (const Position& b : book_) {
      bool same = b.m == p.m;
      for (int i = 0; same && i < p.m; ++i)
        same = b.own_pit(i) == p.own_pit(i) && b.opp_pit(i) == p.opp_pit(i);
      if (same) {
        ++book_hits;
        Position q = p;
        q.own_kalah() = q.opp_kalah() = 0;
        return naive_.margin(q);
      }
    }
    return NaiveOracle::future(p);
  }
  int book_hits = 0;

 private:
  Naive naive_;
  std::vector<Position> book_;
};

// A position reached by random play from the start of (m, k), with random kalahs added.
Position random_position(Rules rules, int m, int k, std::mt19937_64& rng) {
  Position p = start_position(m, k, rng() % 2 ? Side::kSouth : Side::kNorth);
  const int plies = int(rng() % (2 * m * k + 2));
  for (int i = 0; i < plies && !is_over(rules, p); ++i) {
    std::vector<int> legal;
    for (int pit = 1; pit <= m; ++pit)
      if (p.own_pit(pit - 1) > 0) legal.push_back(pit);
    play_move(rules, p, legal[rng() % legal.size()]);
  }
  p.own_kalah() += Stones(rng() % 4);
  p.opp_kalah() += Stones(rng() % 4);
  return p;
}

// A position with `n` stones scattered at random over the pits and random kalahs.
Position scattered_position(int m, int n, std::mt19937_64& rng) {
  Position p = start_position(m, 0, rng() % 2 ? Side::kSouth : Side::kNorth);
  for (int s = 0; s < n; ++s) p.cell[(rng() % 2) * (m + 1) + rng() % m] += 1;
  p.own_kalah() = Stones(rng() % 5);
  p.opp_kalah() = Stones(rng() % 5);
  return p;
}

// A small TT (replacements get exercised) and no exact memo: the alpha-beta search does it all.
SolveOptions small_options() {
  SolveOptions opt;
  opt.tt_bytes = 1 << 16;
  opt.memo_stones = 0;
  return opt;
}

// Checks a complete result against the naive minimax: margin, best moves, and that the PV is a
// game of optimal moves ending at the margin.
void check_result(Rules rules, const Position& p, const SolveResult& r, Naive& naive) {
  const std::string where = std::string(rules_name(rules)) + " " + to_string(p);
  ASSERT_TRUE(r.complete) << where;
  const int want = naive.margin(p);
  ASSERT_EQ(r.margin, want) << where;
  EXPECT_EQ(r.lower, want) << where;
  EXPECT_EQ(r.upper, want) << where;
  EXPECT_EQ(r.best_moves, naive.best_moves(p)) << where;
  if (!r.best_moves.empty()) {
    ASSERT_FALSE(r.pv.empty()) << where;
    EXPECT_NE(std::find(r.best_moves.begin(), r.best_moves.end(), r.pv[0]), r.best_moves.end());
  }
  // Along the PV each move keeps the value: value(child) = +-value(parent).
  Position q = p;
  int value = want;  // for q's side to move
  for (int pit : r.pv) {
    ASSERT_FALSE(is_over(rules, q)) << where;
    ASSERT_EQ(naive.move_value(q, pit), naive.margin(q)) << where << " pv move " << pit;
    const bool again = play_move(rules, q, pit);
    value = again ? value : -value;
    ASSERT_EQ(naive.margin(q), value) << where;
  }
  EXPECT_TRUE(is_over(rules, q)) << where << ": pv stops before the end";
  EXPECT_EQ(final_margin(q), value) << where;
}

TEST(Solve, MatchesNaiveMinimaxOnRandomPositions) {
  std::mt19937_64 rng(12345);
  for (Rules rules : kAllRules) {
    Naive naive(rules);
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
// over the same table afterwards too (an abandoned search stored no bound).
TEST(Solve, DefenceRoundsAnswerEveryTestAsMinimaxAndStoreOnlyProvenBounds) {
  std::mt19937_64 rng(20261127);
  for (Rules rules : kAllRules) {
    Naive naive(rules);
    with_rules(rules, [&](auto policy) {
      using R = decltype(policy);
      using B = solve_detail::SolveBoard<R, ByteArrayBoard<>>;
      int abandoned = 0;
      for (int trial = 0; trial < 16; ++trial) {
        const Position p = scattered_position(4 + trial % 2, 8 + int(rng() % 5), rng);
        if (is_over(rules, p)) continue;
        const int n = p.pit_stones();
        const int future = naive.margin(p) - p.kalah_difference();
        SolveTable table(1 << 20);
        solve_detail::Search<B> s(solve_detail::TableView(table, 0), nullptr, nullptr, nullptr, 0);
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
    Naive naive(rules);
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
  EXPECT_LE(r.lower, 0);  // RULES.md: a draw
  EXPECT_GE(r.upper, 0);
  EXPECT_TRUE(r.best_moves.empty());
  EXPECT_TRUE(r.pv.empty());
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

TEST(Solve, OracleGivesIdenticalResults) {
  std::mt19937_64 rng(4242);
  std::uint64_t hits = 0;
  for (Rules rules : kAllRules) {
    Naive naive(rules);
    for (int trial = 0; trial < 40; ++trial) {
      const int m = 2 + int(rng() % 3);
      const Position p = random_position(rules, m, m == 4 ? 1 : 2, rng);
      NaiveOracle oracle(rules, int(rng() % 6));
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
    Naive naive(rules);
    ResidentTable db("solve_resident", rules, 9);
    Probe& resident = *db.probe;
    Probe cached(db.store, db.table, 1 << 20);
    ASSERT_TRUE(resident.resident());
    std::uint64_t hits = 0;
    for (int trial = 0; trial < 30; ++trial) {
      const Position p = random_position(rules, 3, 2 + trial % 2, rng);
      SolveOptions opt = small_options();
      opt.untabled_above_db = trial % 3 * 2;  // the same TT levels both ways
      opt.oracle = &resident;
      const SolveResult with_resident = solve(rules, p, opt);
      opt.oracle = &cached;
      const SolveResult with_cache = solve(rules, p, opt);
      opt.oracle = &resident;
      opt.untabled_above_db = -1;  // automatic
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
TEST(Solve, UntabledLevelsAboveTheDatabaseChangeNodesNotValues) {
  std::mt19937_64 rng(4242);
  for (Rules rules : kAllRules) {
    Naive naive(rules);
    ResidentTable db("solve_untabled", rules, 8);
    Probe& resident = *db.probe;
    std::uint64_t nodes_differ = 0;
    for (int trial = 0; trial < 10; ++trial) {
      const Position p = scattered_position(3, 16, rng);  // 8 stones beyond the table
      SolveOptions opt = small_options();
      opt.oracle = &resident;
      opt.untabled_above_db = 0;
      const SolveResult all = solve(rules, p, opt);
      opt.untabled_above_db = 4;
      const SolveResult some = solve(rules, p, opt);
      check_result(rules, p, all, naive);  // margin, best moves, an optimal PV (PVs may differ)
      check_result(rules, p, some, naive);
      // Automatic: the gap under the extra-turn rule sets, none under wetherell's relays.
      opt.untabled_above_db = -1;
      const SolveResult automatic = solve(rules, p, opt);
      EXPECT_EQ(automatic.nodes, rules == Rules::kWetherell ? all.nodes : some.nodes);
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
      SolveTable source(opt.tt_bytes);
      opt.table = &source;
      const SolveResult plain = solve(rules, p, opt);
      opt.table = nullptr;
      opt.move_source = &source;
      const SolveResult ordered = solve(rules, p, opt);
      ASSERT_TRUE(plain.complete && ordered.complete) << where;
      EXPECT_EQ(ordered.margin, plain.margin) << where;
      EXPECT_EQ(ordered.best_moves, plain.best_moves) << where;
      plain_expanded += plain.expanded;
      ordered_expanded += ordered.expanded;
      SolveTable empty(opt.tt_bytes);
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
  Naive naive(Rules::kKalah);
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

// Several threads sharing the TT (and the memo) prove the same values and moves, more threads
// than moves included (idle threads join the moves still being settled).
TEST(Solve, ThreadsGiveExactResults) {
  std::mt19937_64 rng(2718);
  for (Rules rules : kAllRules) {
    Naive naive(rules);
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
      solve_detail::SolveTable table(std::size_t(1) << 20);
      solve_detail::SearchTeam<B> team(
          3, solve_detail::TableView(table, 0), static_cast<ExactOracle*>(nullptr),
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
      solve_detail::SolveTable table(std::size_t(1) << 20);
      solve_detail::Search<B> s(solve_detail::TableView(table, 0), nullptr, nullptr, nullptr, 0);
      std::vector<std::uint64_t> busy(solve_detail::Search<B>::kBusySlots, 0);
      const std::atomic<bool> stop{false};
      s.set_parallel(&stop, busy.data());
      const int claimed = future + 4;  // the other thread's exact value, beyond the window
      int reports = 0;
      s.set_limits(
          std::nullopt, nullptr,
          [&] {
            if (settle && ++reports == 1)
              solve_detail::TableView(table, 0).store(b.key(), claimed, claimed, 0, 60);
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
    Naive naive(rules);
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

TEST(Solve, ExactMemoGivesIdenticalResults) {
  std::mt19937_64 rng(31337);
  for (Rules rules : kAllRules) {
    Naive naive(rules);
    for (int trial = 0; trial < 40; ++trial) {
      const int m = 1 + int(rng() % 4);
      const Position p = trial % 2 ? random_position(rules, m, m <= 2 ? 3 : 5 - m, rng)
                                   : scattered_position(m, 6 + int(rng() % 5), rng);
      SolveOptions opt = small_options();
      opt.memo_stones = 1 + int(rng() % 7);
      NaiveOracle oracle(rules, int(rng() % 5));
      if (trial % 3 == 0) opt.oracle = &oracle;  // the memo asks the oracle below its levels
      check_result(rules, p, solve(rules, p, opt), naive);
    }
  }
}

TEST(Solve, DefaultOptionsSolveTheValueVectorsOfFourPits) {
  // The automatic memo and the default table sizes, on every 4-pit vector of one file each.
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
  for (const auto& [p, table, untabled, expected] : rows)
    EXPECT_EQ(auto_tt_bytes(p, table, untabled), mib(expected))
        << p.pit_stones() << " in pits, table " << table << (untabled ? ", untabled" : "");
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
  const test::CliResult untabled0 = kalah_solve(game + " --threads 1 --untabled 0");
  const test::CliResult untabled3 = kalah_solve(game + " --threads 1 --untabled 3");
  const test::CliResult untabled_bad = kalah_solve(game + " --untabled 65");
  const test::CliResult untabled_no_db =
      kalah_solve("--rules kalah --pits 4 --stones 3 --no-db --untabled 2");
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
  ASSERT_EQ(untabled0.status, 0) << untabled0.err;
  ASSERT_EQ(untabled3.status, 0) << untabled3.err;
  EXPECT_EQ(answer(untabled0.out), answer(none.out));
  EXPECT_EQ(answer(untabled3.out), answer(none.out));
  const auto nodes = [](const std::string& out) {
    const auto at = out.find("nodes:      ");
    return at == std::string::npos ? -1LL : std::stoll(out.substr(at + 12));
  };
  EXPECT_NE(nodes(untabled0.out), nodes(untabled3.out)) << untabled0.out << untabled3.out;
  EXPECT_EQ(untabled_bad.status, 2);
  EXPECT_NE(untabled_bad.err.find("--untabled"), std::string::npos) << untabled_bad.err;
  EXPECT_EQ(untabled_no_db.status, 2);
  EXPECT_NE(untabled_no_db.err.find("--no-db"), std::string::npos) << untabled_no_db.err;
  // Fewer levels answer fewer positions: more of the tree is searched.
  const auto expanded = [](const std::string& out) {
    const auto at = out.find("expanded ");
    return at == std::string::npos ? -1LL : std::stoll(out.substr(at + 9));
  };
  EXPECT_GT(expanded(lower.out), expanded(memory.out)) << lower.out << memory.out;
}

TEST(SolveCli, BadInputIsOneLineError) {
  for (const char* args :
       {"--no-db 1,2,3/1,2 S", "--no-db '1,x,0/1,1,0 S'", "--no-db --rules foo", "--no-db --pits 0",
        "--no-db --stones 2 '1,1,0/1,1,0 S'", "--no-db --pits 3 '1,1,0/1,1,0 S'",
        "--no-db --max-time -1", "--no-db --tt-mb -1", "--no-db --memo 200",
        "--no-db --db /nonexistent/kalah.db", "--no-db --bogus", "--no-db --db-load all"}) {
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
