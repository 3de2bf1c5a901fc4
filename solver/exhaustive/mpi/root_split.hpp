// A solve's root split into null-window tests of its moves, which may run anywhere and at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/root_bounds.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

// Settles every root move's margin v (RULES.md margin for the side to move at the root, kalahs
// included) by tests "v >= level?" that the caller runs (each a solve_test of the position after
// the move) on any number of workers. As in MTD(f), the tests of all moves are made at one level
// of the root's margin, which starts at the guess and moves to the root's new upper bound when
// every move fails below it, or above the best lower bound when a move reaches it. Once the
// bounds of the best move meet the root's upper bound, the other moves are tested against it. A
// move is closed once its bounds meet or its upper bound is below the best lower bound (it is not
// best). When every move is closed, the root's margin is the best lower bound and the best moves
// are those that reach it, as solve() finds them.
class RootSplit {
 public:
  // A test to run: solve_test(rules, child, beta) proves whether move `pit`'s v >= level.
  struct Job {
    int pit = 0;  // 1-based
    int level = 0;
    Position child;
    int beta = 0;
  };

  // guess: the margin the first test of each move is made at (the engine's, say). resume: bounds
  // an earlier solve of this root proved (its moves'), or null.
  RootSplit(Rules rules, const Position& root, int guess, const SolveResult* resume = nullptr);

  // The next test for `worker`, of a move that is open, not under test and whose bounds hold the
  // level: the move it tested last if that one qualifies (its transposition table knows it), else
  // the one of the highest upper bound. nullopt when none qualifies now.
  std::optional<Job> next(int worker);
  // What a job's test proved (a stopped test proves nothing; the move is open again).
  void record(const Job& job, const TestResult& t);

  bool done() const;
  // What is proven: lower, upper and every move's bounds; when done, complete with the margin and
  // the best moves (no principal variation).
  SolveResult result() const;
  // One line: each move's bounds, and the tests under way.
  std::string status() const;

 private:
  struct Move : ProvenBounds {
    int pit;
    Position child;
    bool again;  // the mover moves again after it
    bool busy = false;
    int worker = -1;  // the worker that tested it last
    int level = 0;    // the level under test
  };

  int best_lower() const;
  int test_level();  // the level of the next tests (moves level_ into the root's bounds)
  bool open(const Move& m) const;

  Rules rules_;
  int level_;                // the root's level under test
  std::vector<Move> moves_;  // ascending pit
};

}  // namespace kalah
