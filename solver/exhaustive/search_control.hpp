// What a solver search keeps beside its tree: the node count and the limits polled every few
// thousand nodes, the path of nodes it is in (to leave one another thread settled), the budget of
// a defence round, and the line it is searching (for the progress report).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "exhaustive/solve_tt.hpp"

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
  explicit SearchControl(TableView tt) : tt_(tt) {}

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

  TableView tt_;
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
  std::optional<Clock::time_point> deadline_;
  std::function<void()> report_;
  Clock::duration report_every_{};
  Clock::time_point last_report_{};
};

}  // namespace kalah::solve_detail
