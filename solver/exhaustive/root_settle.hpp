// Settling a solve's root moves once MTD(f) has a bound: which moves achieve the root's margin,
// one move after another on every thread, or one move a thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "solver/exhaustive/root_context.hpp"

namespace kalah::solve_detail {

// Each move's future margin v (for the side to move at the root) is settled against the best
// found so far: "v >= level?" with level = max(lo, top), and a move that reaches it climbs by
// further tests until one fails. A move that fails is not best; the root's margin is the highest
// v. No move but the best is ever refuted twice.
template <class B>
class MoveSettler {
 public:
  explicit MoveSettler(RootContext<B>& c) : c_(c) {}

  // False when stopped; else the ledger's top() is the root's future margin, its best moves those
  // that achieve it, and its bounds meet there.
  bool run();

  // Move i's exact v when v >= level, else -n - 1 (v < level); nullopt at the deadline. run(b, nb,
  // beta) is the null-window test to use; `show(level)` names each test in the progress line.
  template <class Run, class Show>
  Test settle(int i, int level, const Run& run, const Show& show) {
    int v = -c_.n - 1;
    while (true) {
      show(level);
      Test r = decided(i, level);
      if (!r) r = c_.move_test(i, level, run);
      if (!r) return std::nullopt;
      c_.ledger.narrow(i, level, *r);
      c_.ledger.announce();
      if (*r < level) return v;
      v = std::min(round_up(*r, c_.parity), c_.ledger.hi());
      if (v == c_.ledger.hi()) return v;  // no move does better
      level = v + 2;
    }
  }

 private:
  // The result of move i's test against level when its proven bounds already give it (a resumed
  // solve): its lower bound when that reaches level, its upper bound when that is below it.
  Test decided(int i, int level) const {
    const auto [lower, upper] = c_.ledger.bounds_of(i);
    if (lower >= level) return lower;
    if (upper < level) return upper;
    return std::nullopt;
  }

  // The legal moves, the TT's stored best move first: it usually sets the level.
  std::vector<int> order() const {
    std::vector<int> order;
    if (c_.n >= c_.team.main().tt_min_stones()) {
      if (SolveEntry e; c_.tt.probe(c_.root.key(), e) && e.move >= 0 && c_.root.pit(e.move) > 0)
        order.push_back(e.move);
    }
    for (int i = 0; i < c_.root.m(); ++i)
      if (c_.root.pit(i) > 0 && (order.empty() || order[0] != i)) order.push_back(i);
    return order;
  }

  std::function<void(int)> move_phase(const std::vector<int>& order, std::size_t k) {
    return [this, &order, k](int level) {
      c_.ledger.set_phase("pit " + std::to_string(order[k] + 1) + " (" + std::to_string(k + 1) +
                          " of " + std::to_string(order.size()) +
                          "): test margin >= " + std::to_string(c_.kd + level));
    };
  }

  RootContext<B>& c_;
};

// The moves after the first, one per thread at a time, each against the same level: most of them
// only prove v < level, and those proofs share no root. A thread that finds no move left joins
// the unfinished move with the fewest threads on it, so the last moves are not searched by one
// thread while the others wait; a move's threads stop when one of them settles it.
template <class B>
class OnePerThread {
 public:
  OnePerThread(RootContext<B>& c, MoveSettler<B>& settler, const std::vector<int>& order)
      : c_(c),
        settler_(settler),
        order_(order),
        level_(std::max(c.ledger.lo(), c.ledger.top())),
        jobs_(order.size()) {}

  // False when stopped; else every move after the first is recorded in the ledger.
  bool run() {
    show();
    c_.team.on_all_threads([this](Search<B>& s) { work(s); });
    if (failed_) return false;
    for (std::size_t k = 1; k < order_.size(); ++k) c_.ledger.record(order_[k], *jobs_[k].got);
    return true;
  }

 private:
  struct Job {
    std::atomic<bool> done{false};  // settled (or the solve stopped): its threads stop
    std::atomic<int> threads{0};
    Test got;  // written once, by the thread that set `done` by settling it
  };

  // One thread's moves until none is left unsettled.
  void work(Search<B>& s) {
    StopScope<B> scope(c_.team, s);
    const auto alone = [&s](const B& b, int nb, int beta) {
      return SearchTeam<B>::test_alone(s, b, nb, beta);
    };
    for (std::size_t k; !failed_ && (k = pick()) != 0;) {
      Job& job = jobs_[k];
      ++job.threads;
      scope.use(&job.done);
      s.restart();
      const Test v = settler_.settle(order_[k], level_, alone, [this](int) { show(); });
      --job.threads;
      if (v) {
        if (!job.done.exchange(true)) job.got = v;
        show();
      } else if (!job.done) {  // the deadline or a cancel, not another thread settling k
        failed_ = true;
        for (Job& j : jobs_) j.done = true;
      }
    }
  }

  // The next move for a thread: an unclaimed one, else the unfinished one with fewest threads;
  // 0 when every move is settled.
  std::size_t pick() {
    if (const std::size_t k = next_++; k < order_.size()) return k;
    std::size_t best = 0;
    for (std::size_t k = 1; k < order_.size(); ++k)
      if (!jobs_[k].done && (best == 0 || jobs_[k].threads < jobs_[best].threads)) best = k;
    return best;
  }

  // The phase names every unsettled move with the margin its test is against: the level, or
  // above the lower bound a test proved (settle() climbs from there).
  void show() {
    std::string phase = "one per thread, margin tests:";
    const char* sep = " pit ";
    for (std::size_t k = 1; k < order_.size(); ++k) {
      if (jobs_[k].done) continue;
      const int lower = c_.ledger.lower_of(order_[k]);
      phase.append(sep).append(std::to_string(order_[k] + 1));
      phase.append(" >= ").append(std::to_string(c_.kd + (lower >= level_ ? lower + 2 : level_)));
      sep = ", pit ";
    }
    c_.ledger.set_phase(std::move(phase));
  }

  RootContext<B>& c_;
  MoveSettler<B>& settler_;
  const std::vector<int>& order_;
  const int level_;
  std::vector<Job> jobs_;
  std::atomic<std::size_t> next_{1};
  std::atomic<bool> failed_{false};
};

template <class B>
bool MoveSettler<B>::run() {
  const std::vector<int> order = this->order();
  const auto on_every_thread = c_.on_every_thread();
  const Test first = settle(order[0], c_.ledger.lo(), on_every_thread, move_phase(order, 0));
  if (!first) return false;
  c_.ledger.record(order[0], *first);
  if (c_.team.alone() || order.size() < 3) {
    for (std::size_t k = 1; k < order.size(); ++k) {
      const int level = std::max(c_.ledger.lo(), c_.ledger.top());
      const Test v = settle(order[k], level, on_every_thread, move_phase(order, k));
      if (!v) return false;
      c_.ledger.record(order[k], *v);
    }
  } else if (!OnePerThread<B>(c_, *this, order).run()) {
    return false;
  }
  c_.ledger.settle();
  return true;
}

}  // namespace kalah::solve_detail
