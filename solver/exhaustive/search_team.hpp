// The solver's thread team: one Search a thread over one shared TT, a null-window test run by
// all of them, and work on every thread with any thread's error carried to the caller.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_search.hpp"

namespace kalah::solve_detail {

// A null-window test "future of b >= beta" on some board: the fail-soft result, or nullopt when
// the deadline passed (or the search was stopped) first.
using Test = std::optional<int>;

// The searches of one solve: main() runs on the caller's thread, the helpers on threads of their
// own while on_all_threads() runs; with more than one, they share busy marks (Search::set_parallel)
// and a stop flag that test() raises once one of them has answered.
template <class B>
class SearchTeam {
 public:
  using Clock = std::chrono::steady_clock;

  // `threads` searches (at least one), each Search<B>(args...).
  template <class... Args>
  SearchTeam(int threads, Args&&... args) : main_(std::make_unique<Search<B>>(args...)) {
    if (threads > 1) {
      busy_.assign(Search<B>::kBusySlots, 0);
      main_->set_parallel(&stop_, busy_.data());
    }
    for (int t = 1; t < threads; ++t) {
      helpers_.push_back(std::make_unique<Search<B>>(args...));
      helpers_.back()->set_parallel(&stop_, busy_.data());
    }
    for_each([this](Search<B>& s) { s.set_failed_flag(&failed_); });
  }

  // From now on test() is `top` (the best-first top: ProofTree), which searches with
  // search_within(); an empty function: test() searches depth-first.
  using TestFunction = std::function<Test(const B& b, int nb, int beta)>;
  void set_test(TestFunction top) { top_ = std::move(top); }
  // From now on a test that one search runs by itself (test_by(s, ...): a root move a thread) is
  // top(s, ...) (that search's own best-first top); an empty function: test_alone().
  using OneThreadTest = std::function<Test(Search<B>& s, const B& b, int nb, int beta)>;
  void set_one_thread_test(OneThreadTest top) { one_thread_top_ = std::move(top); }
  // From now on refute() is `top`; an empty function: refute() is test().
  void set_refutation_test(TestFunction top) { refutation_top_ = std::move(top); }

  Search<B>& main() { return *main_; }
  const Search<B>& main() const { return *main_; }
  bool alone() const { return helpers_.empty(); }
  // The team's shared stop flag and busy marks, for a search given other work and then returned
  // to the team (Search::set_parallel).
  const std::atomic<bool>* stop() const { return &stop_; }
  std::uint64_t* busy() { return busy_.data(); }

  // The deadline and cancel flag for every search; `report` (may be empty) is called by the main
  // one about once a second.
  void set_limits(std::optional<Clock::time_point> deadline, const std::atomic<bool>* cancel,
                  const std::function<void()>& report) {
    main_->set_limits(deadline, cancel, report);
    for (const auto& h : helpers_) h->set_limits(deadline, cancel, nullptr);
  }

  // work(s) for every search s, on this thread.
  template <class Work>
  void for_each(const Work& work) {
    work(*main_);
    for (const auto& h : helpers_) work(*h);
  }

  // Runs work(s) with every thread's search s, this thread's included, and waits for them all.
  // An exception in any of them (a damaged table, memory) stops the others at their next poll
  // and is rethrown here once all have returned: none escapes a thread.
  template <class Work>
  void on_all_threads(const Work& work) {
    std::exception_ptr error;
    std::mutex error_mutex;
    const auto guarded = [&](Search<B>& s) {
      try {
        work(s);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed_ = true;
      }
    };
    std::vector<std::thread> pool;
    std::vector<double> busy(helpers_.size(), 0.0);  // each helper's seconds in work, its own slot
    const auto count_busy = [this, &busy] {
      for (const double b : busy) helper_seconds_ += b;
    };
    try {
      for (std::size_t i = 0; i < helpers_.size(); ++i)
        pool.emplace_back([&guarded, &busy, &h = *helpers_[i], i] {
          const Clock::time_point start = Clock::now();
          guarded(h);
          busy[i] = std::chrono::duration<double>(Clock::now() - start).count();
        });
    } catch (...) {  // no thread to start: those started stop, then the error goes on
      failed_ = true;
      for (std::thread& th : pool) th.join();
      count_busy();
      throw;
    }
    guarded(*main_);
    for (std::thread& th : pool) th.join();
    count_busy();
    if (error) std::rethrow_exception(error);
  }

  // The null-window test by search s alone.
  static Test test_alone(Search<B>& s, const B& b, int nb, int beta) {
    const int r = s.search(b, nb, beta - 1, beta);
    return s.stopped() ? std::nullopt : Test(r);
  }

  // The null-window test by search s by itself, through its best-first top when
  // set_one_thread_test() gave one.
  Test test_by(Search<B>& s, const B& b, int nb, int beta) {
    if (!one_thread_top_) return test_alone(s, b, nb, beta);
    top_tests_.fetch_add(1, std::memory_order_relaxed);
    return one_thread_top_(s, b, nb, beta);
  }

  // The same test on every thread (through the best-first top when set_test() gave one); the
  // first to finish answers (all answers are proofs, so any will do). stop() is raised once the
  // test is over (answered, or stopped by the deadline, a cancel or a failure: then nullopt).
  Test test(const B& b, int nb, int beta) {
    if (!top_) return test_depth_first(b, nb, beta);
    top_tests_.fetch_add(1, std::memory_order_relaxed);
    return top_(b, nb, beta);
  }

  // test() where its caller expects it to fail (b's future below beta): through the refutation
  // top when set_refutation_test() gave one.
  Test refute(const B& b, int nb, int beta) {
    if (!refutation_top_) return test(b, nb, beta);
    top_tests_.fetch_add(1, std::memory_order_relaxed);
    return refutation_top_(b, nb, beta);
  }

  // How many tests have gone through a best-first top (test(), refute() or test_by() with one
  // set), on any thread.
  std::uint64_t top_tests() const { return top_tests_.load(std::memory_order_relaxed); }

  // test() without the best-first top.
  Test test_depth_first(const B& b, int nb, int beta) {
    if (alone()) return test_alone(*main_, b, nb, beta);
    bool stopped;
    return search_within(b, nb, beta - 1, beta, 0, 0, kUnlimited, &stopped);
  }

  // A budget no search reaches.
  static constexpr std::uint64_t kUnlimited = ~std::uint64_t(0) >> 1;

  // Search::search_within() of b on every thread, each within `budget` nodes of its own: the
  // first answer, or nullopt when no thread answered: then *stopped says whether the deadline, a
  // cancel or a failure stopped them (else a budget ran out). The first thread to finish, with
  // an answer or not, stops the others (stop() raised).
  std::optional<int> search_within(const B& b, int nb, int alpha, int beta, int ply, int mover,
                                   std::uint64_t budget, bool* stopped) {
    if (alone())
      return search_within_alone(*main_, b, nb, alpha, beta, ply, mover, budget, stopped);
    stop_ = false;
    std::atomic<bool> answered{false}, halted{false};
    int answer = 0;
    on_all_threads([&](Search<B>& s) {
      s.restart();
      const std::optional<int> r = s.search_within(b, nb, alpha, beta, ply, mover, budget);
      if (r && !answered.exchange(true)) {
        answer = *r;
      } else if (!r && s.stopped() && !stop_) {
        halted = true;  // not stopped by another thread finishing first
      }
      stop_ = true;
    });
    *stopped = !answered && halted;
    return answered ? std::optional<int>(answer) : std::nullopt;
  }

  // search_within() by search s alone.
  static std::optional<int> search_within_alone(Search<B>& s, const B& b, int nb, int alpha,
                                                int beta, int ply, int mover, std::uint64_t budget,
                                                bool* stopped) {
    s.restart();
    const std::optional<int> r = s.search_within(b, nb, alpha, beta, ply, mover, budget);
    *stopped = !r && s.stopped();
    return r;
  }

  // The helper threads' seconds of work in on_all_threads(), summed over them: with `seconds` of
  // the solve, helpers() * seconds - helper_seconds() is the time they waited.
  int helpers() const { return int(helpers_.size()); }
  double helper_seconds() const { return helper_seconds_; }

  // The nodes of every search as far as the helpers have reported them (for a progress line
  // while they run).
  std::uint64_t polled_nodes() const {
    std::uint64_t nodes = main_->nodes();
    for (const auto& h : helpers_) nodes += h->polled_nodes();
    return nodes;
  }

  // r's nodes, oracle hits, expanded nodes and TT cutoffs: the sums over every search (none
  // running).
  void count_into(SolveResult& r) const {
    r.nodes = r.oracle_hits = r.expanded = r.tt_cutoffs = 0;
    const auto add = [&r](const Search<B>& s) {
      r.nodes += s.nodes();
      r.oracle_hits += s.oracle_hits();
      r.expanded += s.expanded();
      r.tt_cutoffs += s.tt_cutoffs();
    };
    add(*main_);
    for (const auto& h : helpers_) add(*h);
  }

 private:
  std::unique_ptr<Search<B>> main_;
  TestFunction top_;              // set_test()
  OneThreadTest one_thread_top_;  // set_one_thread_test()
  TestFunction refutation_top_;   // set_refutation_test()
  std::vector<std::unique_ptr<Search<B>>> helpers_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};          // a thread threw: every search stops (on_all_threads)
  double helper_seconds_ = 0;                // helper_seconds()
  std::atomic<std::uint64_t> top_tests_{0};  // top_tests()
  std::vector<std::uint64_t> busy_;  // the threads' shared busy marks (Search::set_parallel)
};

// For the life of the scope, search s of the team stops on a flag its phase chooses (use()), or
// searches alone (alone()); on leaving, an exception too, it stops on the team's flag again, with
// the team's busy marks, for the later phases.
template <class B>
class StopScope {
 public:
  StopScope(SearchTeam<B>& team, Search<B>& s) : team_(team), s_(s) {}
  ~StopScope() { s_.set_parallel(team_.stop(), team_.busy()); }
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

  // s stops once *stop is true, sharing the team's busy marks.
  void use(const std::atomic<bool>* stop) { s_.set_parallel(stop, team_.busy()); }
  // s searches as the only thread.
  void alone() { s_.set_parallel(nullptr, nullptr); }

 private:
  SearchTeam<B>& team_;
  Search<B>& s_;
};

// For the life of the scope, every search of the team (or the one search given) searches the
// defences of `side` in budgeted rounds (Search::set_defence_rounds); on leaving, none.
template <class B>
class DefenceRoundsScope {
 public:
  DefenceRoundsScope(SearchTeam<B>& team, int side, int plies, std::uint64_t budget)
      : team_(&team) {
    team.for_each([=](Search<B>& s) { s.set_defence_rounds(side, plies, budget); });
  }
  DefenceRoundsScope(Search<B>& s, int side, int plies, std::uint64_t budget) : one_(&s) {
    s.set_defence_rounds(side, plies, budget);
  }
  ~DefenceRoundsScope() {
    if (team_ != nullptr) team_->for_each([](Search<B>& s) { s.set_defence_rounds(-1, 0, 0); });
    if (one_ != nullptr) one_->set_defence_rounds(-1, 0, 0);
  }
  DefenceRoundsScope(const DefenceRoundsScope&) = delete;
  DefenceRoundsScope& operator=(const DefenceRoundsScope&) = delete;

 private:
  SearchTeam<B>* team_ = nullptr;
  Search<B>* one_ = nullptr;
};

}  // namespace kalah::solve_detail
