// What a solver search keeps beside its tree: the node count and the limits polled every few
// thousand nodes, what it shares with the other threads of its team (the stop flag, the busy
// marks), the path of nodes it is in (to leave one another thread settled), the defence rounds
// and their budgets, and the line it is searching (for the progress report).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "solver/exhaustive/solve_tt.hpp"

namespace kalah::solve_detail {

// The part of Search<B> that does not depend on the board: one thread's search state between
// nodes. Search<B> counts nodes_ and calls poll() every kPollMask + 1 of them.
class SearchControl {
 public:
  using Clock = std::chrono::steady_clock;

  // Stops when the clock passes `deadline` or *cancel (when given) becomes true (both checked every
  // few thousand nodes); calls `report` about every `every` seconds when set.
  void set_limits(std::optional<Clock::time_point> deadline, const std::atomic<bool>* cancel,
                  std::function<void()> report, double every = 1.0) {
    deadline_ = deadline;
    cancel_ = cancel;
    report_ = std::move(report);
    report_every_ =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(every));
    last_report_ = Clock::now();
  }

  // True once the deadline passed, the search was cancelled or told to stop: results are
  // meaningless from then on (polled every few thousand nodes). restart() clears it.
  bool stopped() const { return abandon_ply_ == kStoppedPly; }

  void restart() {
    const bool failed = failed_ != nullptr && failed_->load(std::memory_order_relaxed);
    abandon_ply_ = failed ? kStoppedPly : kNoPly;
  }

  // Another thread of the same solve failed (threw) once *failed is true: this search stops as at
  // its deadline (polled like it), and stays stopped through restart().
  void set_failed_flag(const std::atomic<bool>* failed) { failed_ = failed; }

  // Several threads search one root: they share the TT (SolveTT needs no locks) and `busy`, a
  // zeroed array of kBusySlots words that all threads are given, and each stops when *stop becomes
  // true. As in ABDADA, a thread marks a child busy while it searches it (children with at least
  // kBusyAbove stones in pits more than the TT's minimum), and a thread that meets a busy child
  // other than a node's first puts it off until the node's other children are done: by then the
  // other thread's result is usually in the TT. Every poll, a thread reads the entries of the
  // nodes on its path (abandon_settled_ancestor): one that now settles its node's window (another
  // thread stored it) ends the search below that node, which answers from it (or is searched again
  // when a later store replaced the entry). restart() clears a stop for the next search() call;
  // a passed deadline stops it again. set_parallel(nullptr, nullptr) returns to one thread.
  static constexpr std::size_t kBusySlots = std::size_t(1) << 16;
  static constexpr int kBusyAbove = 4;
  void set_parallel(const std::atomic<bool>* stop, std::uint64_t* busy) {
    stop_ = stop;
    busy_ = busy;
  }

  // The every-move analysis's defence rounds (SolveTuning<R>::kDefenceRounds; docs/SOLVER.md,
  // "Every move: one analysis"): at nodes fewer than `plies` moves from the search's root where
  // `side` is to move (0: the side to move at the root, 1: the other), the moves left after the
  // database children are searched in rounds, each move within a node budget (`budget` nodes in the
  // first round, doubled every round): a move whose search runs past its budget is abandoned,
  // storing nothing above the subtrees it finished, and taken up again in the next round; a move
  // settled within it counts as in the plain loop. side -1: none. Values do not change, only node
  // counts.
  void set_defence_rounds(int side, int plies, std::uint64_t budget) {
    rounds_side_ = side;
    rounds_plies_ = plies;
    rounds_budget_ = budget;
  }

  std::uint64_t nodes() const { return nodes_; }
  // nodes() as of the last poll (every few thousand nodes), safe to read from any thread.
  std::uint64_t polled_nodes() const { return polled_nodes_.load(std::memory_order_relaxed); }

  // Where this search is in the tree, from the node search() was called on: for each of the
  // first plies (at most kLinePlies), the pit (0-based) of the move being searched, its rank
  // among its node's moves in the order they are tried (1 first) and its node's moves. Read it
  // on the searching thread (the progress report runs there).
  static constexpr int kLinePlies = 6;
  struct LineStep {
    int pit, rank, moves;
  };
  std::vector<LineStep> line() const {
    std::vector<LineStep> steps;
    for (int p = 0; p < line_depth_; ++p)
      steps.push_back({line_pit_[p], line_rank_[p], line_moves_[p]});
    return steps;
  }

 protected:
  explicit SearchControl(TTView tt) : tt_(tt) {}

  // The busy mark of the child whose lookup (its TT key) is `lookup` (set_parallel).
  std::atomic_ref<std::uint64_t> busy_slot(std::uint64_t lookup) const {
    return std::atomic_ref<std::uint64_t>(busy_[lookup & (kBusySlots - 1)]);
  }

  // Whether the node at the current ply, with `mover` to move (0: the side to move at the
  // search's root), searches its moves in defence rounds (set_defence_rounds).
  bool in_rounds(int mover) const { return mover == rounds_side_ && ply_ < rounds_plies_; }

  // The defence rounds of one node: visit(pit) searches the child after `pit` and says whether
  // that ends the node; pending[0, count) are the children left, the first of them the node's
  // k-th tried. Each round gives each pending child a node budget (doubled every round); one that
  // runs past it is abandoned and pending in the next round. Returns when a child ends the node,
  // every child is settled, or the search halts (stopped, or an enclosing budget ran out).
  template <class Visit>
  void visit_in_rounds(int* pending, int count, int k, Visit&& visit) {
    for (std::uint64_t budget = rounds_budget_; count > 0; budget *= 2) {
      int left = 0;
      for (int j = 0; j < count; ++j) {
        const std::uint64_t outer = budget_end_;
        const std::uint64_t inner = std::min(outer, nodes_ + budget);
        budget_end_ = inner;
        if (ply_ < kLinePlies) line_rank_[ply_] = std::int8_t(k + j);
        const bool end = visit(pending[j]);
        budget_end_ = outer;
        if (halted()) return;
        if (nodes_ >= inner) {
          pending[left++] = pending[j];  // abandoned: again in the next round
        } else if (end) {
          return;
        }
      }
      count = left;
    }
  }

  // True when lo <= future <= hi settles the window (alpha, beta); *v: search()'s answer.
  static bool settles(int lo, int hi, int alpha, int beta, int* v) {
    if (lo >= beta) {
      *v = lo;
    } else if (hi <= alpha || lo == hi) {
      *v = hi;
    } else {
      return false;
    }
    return true;
  }

  static constexpr std::uint64_t kPollMask = (1u << 14) - 1;

  // Stopped (abandon_ply_ is then kStoppedPly), past the budget of a defence round, or inside a
  // node another thread has settled (abandon_ply_): results are meaningless and nothing is stored.
  bool halted() const { return nodes_ >= budget_end_ || ply_ >= abandon_ply_; }

  void poll() {
    polled_nodes_.store(nodes_, std::memory_order_relaxed);
    const Clock::time_point now = Clock::now();
    if ((stop_ != nullptr && stop_->load(std::memory_order_relaxed)) ||
        (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) ||
        (failed_ != nullptr && failed_->load(std::memory_order_relaxed)) ||
        (deadline_ && now >= *deadline_))
      abandon_ply_ = kStoppedPly;
    if (busy_ != nullptr) abandon_settled_ancestor();
    if (report_ && now - last_report_ >= report_every_) {
      last_report_ = now;
      report_();
    }
  }

  // Sets abandon_ply_ to the shallowest node on the path whose TT entry now settles its window.
  void abandon_settled_ancestor() {
    for (int p = 0, end = std::min({ply_, kPathPlies, abandon_ply_}); p < end; ++p) {
      const PathNode& a = path_[p];
      SolveEntry e;
      if (int v;
          a.key != 0 && tt_.probe(a.key, e) && settles(e.lower, e.upper, a.alpha, a.beta, &v)) {
        abandon_ply_ = p;
        return;
      }
    }
  }

  TTView tt_;
  // The team's stop flag, the solve's cancel flag, another thread's failure (Search::set_parallel,
  // set_limits, set_failed_flag); null: none.
  const std::atomic<bool>* stop_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
  const std::atomic<bool>* failed_ = nullptr;
  std::uint64_t* busy_ = nullptr;  // the team's busy marks (Search::set_parallel); null: alone
  // With several threads: the nodes on this thread's path with their TT keys (0: none) and
  // windows, by ply; and the ply of the shallowest one another thread has settled since it was
  // entered (kNoPly: none), where the search returns to without finishing the nodes below it.
  // kStoppedPly once stopped: every ply is halted, with one thread too.
  static constexpr int kPathPlies = 64;
  static constexpr int kNoPly = 1 << 30;
  static constexpr int kStoppedPly = -1;
  struct PathNode {
    std::uint64_t key;
    int alpha, beta;
  };
  PathNode path_[kPathPlies] = {};
  int abandon_ply_ = kNoPly;
  int ply_ = 0;  // moves from the node search() was called on
  std::uint64_t nodes_ = 0;
  std::atomic<std::uint64_t> polled_nodes_{0};
  int line_depth_ = 0;  // the plies of line_* that hold the current line
  std::int8_t line_pit_[kLinePlies] = {};
  std::int8_t line_rank_[kLinePlies] = {};
  std::int8_t line_moves_[kLinePlies] = {};
  // Nodes at which the innermost defence round's budget runs out: from then on every search()
  // returns at once, its result meaningless, until the round takes the budget back.
  std::uint64_t budget_end_ = ~std::uint64_t(0);
  int rounds_side_ = -1, rounds_plies_ = 0;  // set_defence_rounds()
  std::uint64_t rounds_budget_ = 0;
  std::optional<Clock::time_point> deadline_;
  std::function<void()> report_;
  Clock::duration report_every_{};
  Clock::time_point last_report_{};
};

}  // namespace kalah::solve_detail
