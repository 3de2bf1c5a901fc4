// The solver's one analysis per position (SolveOptions::every_move) and the table shared between
// solves (SolveOptions::table): every move exact, bounds so far true, warm answers equal cold ones.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "engine/move.hpp"
#include "solver/exhaustive/solve.hpp"
#include "tests/support/reference.hpp"  // registered_rules
#include "tests/support/vectors.hpp"

namespace kalah {
namespace {

const std::vector<Rules> kAllRules = test::registered_rules();

// The first `count` value-vector positions of `rules` with at most max_pits pits a side, not over.
std::vector<Position> vector_positions(Rules rules, int max_pits, std::size_t count) {
  std::vector<Position> out;
  for (const auto& row :
       test::read_vector_file("values-" + std::string(rules_name(rules)) + ".txt")) {
    const Position p = parse_position(row[0] + " " + row[1]);
    if (p.m <= max_pits && !is_over(rules, p) && out.size() < count) out.push_back(p);
  }
  return out;
}

// The margin of p by a solve of its own (value only; checked against a plain minimax by
// solve_test), and each legal move's margin for p's mover by a solve of the position it leads to.
struct Reference {
  Rules rules;

  int margin(const Position& p) const {
    SolveOptions opt;
    opt.tt_bytes = 1 << 20;
    opt.find_moves = false;
    const SolveResult r = solve(rules, p, opt);
    EXPECT_TRUE(r.complete);
    return r.margin;
  }
  std::vector<int> move_values(const Position& p) const {
    std::vector<int> out;
    for (int pit = 1; pit <= p.m; ++pit) {
      if (p.own_pit(pit - 1) == 0) continue;
      Position c = p;
      const bool again = play_move(rules, c, pit);
      out.push_back(again ? margin(c) : -margin(c));
    }
    return out;
  }
};

SolveOptions analysis_options(int threads) {
  SolveOptions opt;
  opt.tt_bytes = 1 << 20;
  opt.threads = threads;
  opt.every_move = true;
  opt.find_pv = false;
  return opt;
}

// r holds every move exact and equal to the reference, the margin their best and the best moves
// those that reach it.
void expect_every_move_exact(const Position& p, const SolveResult& r, const Reference& ref) {
  const std::vector<int> want = ref.move_values(p);
  ASSERT_TRUE(r.complete) << to_string(p);
  ASSERT_EQ(r.moves.size(), want.size()) << to_string(p);
  const int margin = ref.margin(p);
  std::vector<int> best;
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_TRUE(r.moves[k].exact()) << to_string(p) << " pit " << r.moves[k].pit;
    EXPECT_EQ(r.moves[k].lower, want[k]) << to_string(p) << " pit " << r.moves[k].pit;
    if (want[k] == margin) best.push_back(r.moves[k].pit);
  }
  EXPECT_EQ(r.margin, margin) << to_string(p);
  EXPECT_EQ(r.best_moves, best) << to_string(p);
  EXPECT_TRUE(r.pv.empty());
}

TEST(Analysis, EveryMoveIsExactOnTheValueVectors) {
  for (const Rules rules : kAllRules) {
    const Reference ref{rules};
    // One thread with the analysis's best-first top (its default) and without; two threads, a
    // move a thread, with each thread's own top (the default) and without.
    for (const auto& [threads, plies] :
         {std::pair(1, -1), std::pair(1, 0), std::pair(2, -1), std::pair(2, 0)}) {
      int checked = 0;
      for (const Position& p : vector_positions(rules, 4, 16)) {
        SolveOptions opt = analysis_options(threads);
        opt.best_first_plies = plies;
        expect_every_move_exact(p, solve(rules, p, opt), ref);
        ++checked;
      }
      EXPECT_GT(checked, 10) << rules_name(rules);
    }
  }
}

// Every result passed to on_proven holds true bounds, each no looser than the one before and
// narrower somewhere (or with the best moves newly proven), and the best moves only once they are
// proven.
TEST(Analysis, TheAnswersSoFarAreTrueBoundsThatOnlyNarrow) {
  for (const Rules rules : kAllRules) {
    const Reference ref{rules};
    for (const Position& p : vector_positions(rules, 4, 16)) {
      const std::vector<int> want = ref.move_values(p);
      const int margin = ref.margin(p);
      std::vector<SolveResult> seen;
      SolveOptions opt = analysis_options(2);
      opt.on_proven = [&](const SolveResult& r) { seen.push_back(r); };
      const SolveResult last = solve(rules, p, opt);
      ASSERT_TRUE(last.complete);
      ASSERT_FALSE(seen.empty()) << to_string(p);
      for (std::size_t i = 0; i < seen.size(); ++i) {
        const SolveResult& r = seen[i];
        EXPECT_LE(r.lower, margin) << to_string(p);
        EXPECT_GE(r.upper, margin) << to_string(p);
        ASSERT_EQ(r.moves.size(), want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
          EXPECT_LE(r.moves[k].lower, want[k]) << to_string(p) << " pit " << r.moves[k].pit;
          EXPECT_GE(r.moves[k].upper, want[k]) << to_string(p) << " pit " << r.moves[k].pit;
          if (i > 0) {
            EXPECT_GE(r.moves[k].lower, seen[i - 1].moves[k].lower);
            EXPECT_LE(r.moves[k].upper, seen[i - 1].moves[k].upper);
          }
        }
        if (!r.best_moves.empty()) {
          EXPECT_EQ(r.best_moves, last.best_moves) << to_string(p);
        }
        if (i > 0) {
          const SolveResult& before = seen[i - 1];
          const bool narrower = r.lower != before.lower || r.upper != before.upper ||
                                r.moves != before.moves || r.best_moves != before.best_moves;
          EXPECT_TRUE(narrower) << to_string(p) << " answer " << i << " repeats the one before";
        }
      }
    }
  }
}

// Stopped at any point (cancelled after the k-th answer so far), the result is what was proven:
// true bounds, incomplete unless everything was proven by then.
TEST(Analysis, ACancelledAnalysisAnswersTrueBounds) {
  const Rules rules = Rules::kWetherell;
  const Reference ref{rules};
  const Position p = start_position(4, 3);
  const std::vector<int> want = ref.move_values(p);
  const int margin = ref.margin(p);
  for (int k = 1; k <= 12; ++k) {
    std::atomic<bool> cancel{false};
    int calls = 0;
    SolveOptions opt = analysis_options(1);
    opt.cancel = &cancel;
    opt.on_proven = [&](const SolveResult&) {
      if (++calls == k) cancel = true;
    };
    const SolveResult r = solve(rules, p, opt);
    EXPECT_LE(r.lower, margin) << k;
    EXPECT_GE(r.upper, margin) << k;
    ASSERT_EQ(r.moves.size(), want.size());
    bool all_exact = r.lower == r.upper;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_LE(r.moves[i].lower, want[i]) << k;
      EXPECT_GE(r.moves[i].upper, want[i]) << k;
      all_exact = all_exact && r.moves[i].exact();
    }
    if (!all_exact) {
      EXPECT_FALSE(r.complete) << k;
    }
  }
}

// One table shared by solves of every rule set and several board sizes, in turn and from four
// threads at once: each answer equals the answer of a solve with a table of its own. The same pits
// have other values under other rules: the salted keys keep them apart.
TEST(Analysis, ASharedTableGivesTheAnswersOfAColdOne) {
  struct Job {
    Rules rules;
    Position p;
    SolveResult cold;
  };
  std::vector<Job> jobs;
  std::mt19937_64 rng(27);
  for (int m = 3; m <= 5; ++m) {
    for (int i = 0; i < 6; ++i) {
      Position p = start_position(m, 2);
      std::shuffle(p.cell.begin(), p.cell.begin() + 2 * m + 2, rng);  // the same pits for all rules
      for (const Rules rules : kAllRules) {
        if (!is_over(rules, p)) jobs.push_back({rules, p, solve(rules, p, analysis_options(1))});
      }
    }
  }
  ASSERT_GT(jobs.size(), 30u);
  SolveTT shared(1 << 20);
  const auto expect_warm_equals_cold = [&](const Job& j) {
    SolveOptions opt = analysis_options(1);
    opt.tt = &shared;
    const SolveResult warm = solve(j.rules, j.p, opt);
    ASSERT_TRUE(warm.complete);
    EXPECT_EQ(warm.margin, j.cold.margin) << to_string(j.p);
    EXPECT_EQ(warm.best_moves, j.cold.best_moves) << to_string(j.p);
    ASSERT_EQ(warm.moves.size(), j.cold.moves.size());
    for (std::size_t k = 0; k < warm.moves.size(); ++k)
      EXPECT_EQ(warm.moves[k].lower, j.cold.moves[k].lower) << to_string(j.p);
  };
  for (const Job& j : jobs) expect_warm_equals_cold(j);  // in turn, the table warming up
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < jobs.size(); i += 4)
        expect_warm_equals_cold(jobs[jobs.size() - 1 - i]);
    });
  for (std::thread& th : pool) th.join();
}

}  // namespace
}  // namespace kalah
