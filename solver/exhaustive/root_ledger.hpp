// What a solve has proven of its root: the root's bounds, each move's, the moves settled best,
// and what the progress line says the solve is doing, shared by the threads of one solve.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/stopwatch.hpp"
#include "solver/exhaustive/root_bounds.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah::solve_detail {

// Bounds on future margins v (of the side to move at the root; a margin is v plus the root's
// kalah difference kd): lo() <= root's v <= hi(), and for each legal root move (0-based pit i) its
// own proven bounds. Every value keeps the parity of the root's stones in pits n. The root's
// bounds are written by one thread at a time (the caller's, or under the caller's lock) and read
// without a lock by that thread; the moves' bounds, the best moves and the phase are read and
// written under the ledger's lock. What is proven is passed to on_proven (SolveOptions) whenever
// it says more than the last it passed.
class RootLedger {
 public:
  // on_proven (SolveOptions::on_proven; may be empty) must outlive the ledger.
  RootLedger(int n, int kd, const std::function<void(const SolveResult&)>& on_proven,
             SteadyClock::time_point start);

  // Opens root move i with the bounds lower <= v <= upper known before any test.
  void open_move(int i, int lower, int upper);
  // The opened moves' pits (0-based), ascending.
  std::vector<int> move_pits() const;

  // Starts from the bounds an earlier solve of this root proved (SolveOptions::resume): the root's
  // and each opened move's. Returns whether a root test had succeeded: a lower bound above every
  // move's opening bound. Throws std::invalid_argument when the bounds are empty.
  bool resume(const SolveResult& r);
  // Narrows the root's bounds by proven margins lower <= margin <= upper.
  void narrow_root(int lower, int upper);

  int lo() const { return lo_; }
  int hi() const { return hi_; }
  // The highest move value settled (record()), achieved by the best moves; below -n: none yet.
  int top() const { return top_; }

  // The null-window test MTD(f) makes for a guess: within the open bounds, of n's parity.
  int test_beta(int guess) const;
  // The root's bounds after a test against beta answered r (fail-soft), announced.
  void record_test(int beta, int r);

  // What a test of root move i against `level` proved: r >= level proves v >= r, else v <= r.
  void narrow(int i, int level, int r);
  // Move i's proven bounds on v, the root's upper bound included (no move does better).
  std::pair<int, int> bounds_of(int i) const;
  // Move i's proven lower bound.
  int lower_of(int i) const;

  // Move i has the exact v, or v below every settled value: best so far, tied, or not best.
  void record(int i, int v);
  // Every move is settled: the root's v is top(), achieved by the moves recorded, announced.
  // Throws std::logic_error when no move reaches the root's proven lower bound (a TT collision).
  void settle();

  // Passes what is proven so far to on_proven, when it says more than the last it passed (a test
  // can prove what is known: a resumed bound, another thread's test, a root bound the moves'
  // bounds already implied).
  void announce();

  // What the solve is doing, for the progress line; empty: root MTD(f) tests.
  void set_phase(std::string phase);
  struct Progress {
    std::string phase;
    int lo, hi;
  };
  Progress progress() const;

  // r's lower, upper, moves and best moves (as recorded, settled or not) from what is proven.
  void fill(SolveResult& r) const;

 private:
  struct MoveState : ProvenBounds {
    int i;
  };
  // Opened move i; null when i is none (mutex_ held).
  const MoveState* find_move(int i) const;
  MoveState* find_move(int i) { return const_cast<MoveState*>(std::as_const(*this).find_move(i)); }
  // Bounds lo <= v <= hi narrowed by proven margins lower <= margin <= upper.
  void narrow_future(int& lo, int& hi, int lower, int upper) const;
  // What announce() passes (mutex_ held, or no search running).
  SolveResult proven_so_far() const;
  void fill_bounds(SolveResult& r) const;  // mutex_ held

  const int n_, kd_, parity_;
  const std::function<void(const SolveResult&)>& on_proven_;
  const SteadyClock::time_point start_;
  int lo_, hi_;
  int top_;
  std::vector<MoveState> moves_;  // ascending pit
  std::vector<int> best_moves_;   // 1-based pits achieving top_
  bool settled_ = false;          // best_moves_ are proven
  std::string phase_;
  std::optional<SolveResult> announced_;  // the last result passed to on_proven
  mutable std::mutex mutex_;  // guards moves_, best_moves_, phase_ and the calls of on_proven
};

}  // namespace kalah::solve_detail
