// Settling a solve's root moves once MTD(f) has a bound: which moves achieve the root's margin,
// one move after another on every thread, or one move a thread.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "solver/exhaustive/root_context.hpp"
#include "solver/exhaustive/root_share.hpp"
#include "solver/exhaustive/solve_tuning.hpp"

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
  // beta) is the null-window test to use for the first test, refute for the tests after it (a
  // climb, expected to fail: RootContext::refuting_on_every_thread); `show(level)` names each test
  // in the progress line.
  template <class Run, class Refute, class Show>
  Test settle(int i, int level, const Run& run, const Refute& refute, const Show& show) {
    int v = -c_.n - 1;
    for (bool first = true;; first = false) {
      show(level);
      Test r = decided(i, level);
      if (!r) r = first ? c_.move_test(i, level, run) : c_.move_test(i, level, refute);
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

  // The moves after the first, one per thread at a time (MovesPerThread), each against the same
  // level: most of them only prove v < level, and those proofs share no root. False when stopped.
  bool one_per_thread(const std::vector<int>& order) {
    const int level = std::max(c_.ledger.lo(), c_.ledger.top());
    MovesPerThread<B> share(
        c_, std::vector<int>(order.begin() + 1, order.end()), "one per thread, margin tests:",
        [this, level](int pit) {  // settle() climbs from a lower bound a test proved
          const int lower = c_.ledger.lower_of(pit);
          return " >= " + std::to_string(c_.kd + (lower >= level ? lower + 2 : level));
        });
    const auto got = share.run([this, level, &share](Search<B>& s, int pit) {
      return settle(pit, level, c_.by(s), c_.by(s), [&share](int) { share.show(); });
    });
    if (!got) return false;
    for (std::size_t k = 1; k < order.size(); ++k) c_.ledger.record(order[k], *(*got)[k - 1]);
    return true;
  }

  RootContext<B>& c_;
};

template <class B>
bool MoveSettler<B>::run() {
  const std::vector<int> order = this->order();
  // The first move is expected to reach the margin proven and no more; the others not to reach it
  // (through the refutation top where SolveTuning's kRefuteOtherMoves says so).
  const auto refute = c_.refuting_on_every_thread();
  const auto other = [this](const B& b, int nb, int beta) {
    return SolveTuning<typename B::Rules>::kRefuteOtherMoves ? c_.team.refute(b, nb, beta)
                                                             : c_.team.test(b, nb, beta);
  };
  const Test first =
      settle(order[0], c_.ledger.lo(), c_.on_every_thread(), refute, move_phase(order, 0));
  if (!first) return false;
  c_.ledger.record(order[0], *first);
  if (c_.team.alone() || order.size() < 3) {
    for (std::size_t k = 1; k < order.size(); ++k) {
      const int level = std::max(c_.ledger.lo(), c_.ledger.top());
      const Test v = settle(order[k], level, other, other, move_phase(order, k));
      if (!v) return false;
      c_.ledger.record(order[k], *v);
    }
  } else if (!one_per_thread(order)) {
    return false;
  }
  c_.ledger.settle();
  return true;
}

}  // namespace kalah::solve_detail
