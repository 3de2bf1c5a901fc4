// A root's moves shared among the threads of a solve, one move a thread at a time: the moves'
// settling and the every-move analysis on several threads.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "solver/exhaustive/root_context.hpp"

namespace kalah::solve_detail {

// Each thread takes a move of its own and works on it by itself; a thread that finds no move left
// joins the unfinished move with the fewest threads on it, so the last moves are not searched by
// one thread while the others wait; a move's threads stop when one of them finishes it.
template <class B>
class MovesPerThread {
 public:
  // A move's job on search s, which runs its tests by itself (RootContext::by(s)): its result, or
  // nullopt when the search was stopped.
  using Work = std::function<Test(Search<B>& s, int pit)>;

  // The phase line is `title` and each unfinished move as "pit P" followed by what_for(P) (the
  // test under way on it).
  MovesPerThread(RootContext<B>& c, std::vector<int> pits, std::string title,
                 std::function<std::string(int pit)> what_for)
      : c_(c),
        pits_(std::move(pits)),
        title_(std::move(title)),
        what_for_(std::move(what_for)),
        jobs_(pits_.size()) {}

  // Every move's result, in the order of the pits given; nullopt when stopped (the deadline, a
  // cancel).
  std::optional<std::vector<Test>> run(const Work& work) {
    show();
    c_.team.on_all_threads([this, &work](Search<B>& s) { run_jobs(s, work); });
    if (failed_) return std::nullopt;
    std::vector<Test> got;
    for (const Job& job : jobs_) got.push_back(job.got);
    return got;
  }

  // Sets the phase line from the moves not finished (a job calls it as its tests change).
  void show() {
    std::string phase = title_;
    const char* sep = " pit ";
    for (std::size_t k = 0; k < pits_.size(); ++k) {
      if (jobs_[k].done) continue;
      phase.append(sep).append(std::to_string(pits_[k] + 1)).append(what_for_(pits_[k]));
      sep = ", pit ";
    }
    c_.ledger.set_phase(std::move(phase));
  }

 private:
  struct Job {
    std::atomic<bool> done{false};  // finished (or the solve stopped): its threads stop
    std::atomic<int> threads{0};
    Test got;  // written once, by the thread that set `done` by finishing it
  };

  // One thread's moves until none is left unfinished.
  void run_jobs(Search<B>& s, const Work& work) {
    StopScope<B> scope(c_.team, s);
    for (std::size_t k; !failed_ && (k = pick()) < jobs_.size();) {
      Job& job = jobs_[k];
      ++job.threads;
      scope.use(&job.done);
      s.restart();
      const Test v = work(s, pits_[k]);
      --job.threads;
      if (v) {
        if (!job.done.exchange(true)) job.got = v;
        show();
      } else if (!job.done) {  // the deadline or a cancel, not another thread finishing k
        failed_ = true;
        for (Job& j : jobs_) j.done = true;
      }
    }
  }

  // The next move for a thread: an unclaimed one, else the unfinished one with fewest threads;
  // jobs_.size() when every move is finished.
  std::size_t pick() {
    if (const std::size_t k = next_++; k < jobs_.size()) return k;
    std::size_t best = jobs_.size();
    for (std::size_t k = 0; k < jobs_.size(); ++k)
      if (!jobs_[k].done && (best == jobs_.size() || jobs_[k].threads < jobs_[best].threads))
        best = k;
    return best;
  }

  RootContext<B>& c_;
  const std::vector<int> pits_;
  const std::string title_;
  const std::function<std::string(int pit)> what_for_;
  std::vector<Job> jobs_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace kalah::solve_detail
