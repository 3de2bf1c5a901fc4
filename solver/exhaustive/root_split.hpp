// A solve's root split into null-window tests of its moves, which may run anywhere and at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "position.hpp"
#include "rules.hpp"
#include "solve.hpp"

namespace kalah {

// Settles every root move's margin v (RULES.md margin for the side to move at the root, kalahs
// included) against the best proven so far, by tests "v >= level?" that the caller runs (each a
// solve_test of the position after the move) on any number of workers. A move is closed once its
// bounds meet, or once its upper bound is below the best move's lower bound (it is not best). When
// every move is closed, the root's margin is the highest lower bound and the best moves those that
// reach it, exactly as solve() finds them (docs/SOLVER.md, "A solve over processes").
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

  // The next test for `worker`, of a move that is open and not under test: the move it tested
  // last if that one is open (its transposition table knows it), else the open move of the
  // highest upper bound. nullopt when every open move is under test.
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
  struct Move {
    int pit;
    Position child;
    bool again;  // the mover moves again after it
    int lower, upper;
    bool tested = false;
    bool busy = false;
    int worker = -1;  // the worker that tested it last
    int level = 0;    // the level under test
  };

  int best_lower() const;
  bool open(const Move& m) const;

  Rules rules_;
  int guess_;
  std::vector<Move> moves_;  // ascending pit
};

}  // namespace kalah
