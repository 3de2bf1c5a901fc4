// After a solve's root moves are settled: the every-move analysis (the margins of the moves left
// bounded) and the principal variation.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "solver/exhaustive/root_context.hpp"
#include "solver/exhaustive/root_share.hpp"
#include "solver/exhaustive/solve_tuning.hpp"

namespace kalah::solve_detail {

// The defence rounds of the analysis (prove_move): within 8 moves of the test's root, 100,000
// nodes a move in the first round (docs/HISTORY.md, "Where a proof goes: the defences").
constexpr int kDefencePlies = 8;
constexpr std::uint64_t kDefenceBudget = 100000;

// Move i's margin v by MTD(f) from its proven bounds, each test at the highest margin still
// possible: a failing test is cheap next to one that succeeds (which must find a defence against
// every reply), and from above the only test that succeeds is the one at v itself. Under rule sets
// with SolveTuning<R>::kDefenceRounds the root's side searches its defences in budgeted rounds
// (Search::set_defence_rounds). Each test runs on every thread (`alone` null) or by search *alone
// by itself; show(upper) names the test against margin upper in the phase line. False when
// stopped.
template <class B, class Show>
bool prove_move(RootContext<B>& c, int i, std::type_identity_t<Search<B>>* alone,
                const Show& show) {
  const auto run = [&c, alone](const B& b, int nb, int beta) {
    return alone != nullptr ? c.team.test_by(*alone, b, nb, beta) : c.team.test(b, nb, beta);
  };
  std::optional<DefenceRoundsScope<B>> rounds;
  if constexpr (SolveTuning<typename B::Rules>::kDefenceRounds) {
    const int defender = c.root_move(i).again ? 0 : 1;  // the root's side, seen from the child
    if (alone != nullptr)
      rounds.emplace(*alone, defender, kDefencePlies, kDefenceBudget);
    else
      rounds.emplace(c.team, defender, kDefencePlies, kDefenceBudget);
  }
  for (auto [lower, upper] = c.ledger.bounds_of(i); lower < upper;
       std::tie(lower, upper) = c.ledger.bounds_of(i)) {
    show(upper);
    const Test r = c.move_test(i, upper, run);
    if (!r) return false;
    c.ledger.narrow(i, upper, *r);
    c.ledger.announce();
  }
  return true;
}

// The margins of the moves that settling left bounded, each by MTD(f) from its bounds
// (prove_move): on several threads one move a thread (MovesPerThread), each proof searched by its
// thread by itself, through that thread's own best-first top when it has one; on one thread, or
// for a single move, each test on every thread. False when stopped.
template <class B>
bool value_every_move(RootContext<B>& c) {
  std::vector<int> open;
  for (const int i : c.ledger.move_pits())
    if (const auto [lower, upper] = c.ledger.bounds_of(i); lower < upper) open.push_back(i);
  if (c.team.alone() || open.size() < 2) {
    for (const int i : open) {
      const auto show = [&c, i](int upper) {
        c.ledger.set_phase("pit " + std::to_string(i + 1) +
                           ": test margin >= " + std::to_string(c.kd + upper));
      };
      if (!prove_move(c, i, nullptr, show)) return false;
    }
    return true;
  }
  MovesPerThread<B> share(c, open, "every move, one per thread, margin tests:", [&c](int pit) {
    return " >= " + std::to_string(c.kd + c.ledger.bounds_of(pit).second);
  });
  return share
      .run([&c, &share](Search<B>& s, int pit) -> Test {
        if (!prove_move(c, pit, &s, [&share](int) { share.show(); })) return std::nullopt;
        return c.ledger.bounds_of(pit).first;
      })
      .has_value();
}

// From the root, a move that keeps the proven future margin at every ply, to the end of the game,
// searched by the main thread alone.
template <class B>
class PrincipalVariation {
 public:
  explicit PrincipalVariation(RootContext<B>& c) : c_(c), s_(c.team.main()) {}

  // Appends the moves (1-based pits) from the root, whose future margin is `future`, to pv. False
  // when stopped.
  bool run(int future, std::vector<int>& pv) {
    StopScope<B> scope(c_.team, s_);
    scope.alone();
    s_.restart();
    c_.ledger.set_phase("principal variation");
    Proven cur{c_.root, c_.n, future};
    for (int end_margin; !game_over(cur.board, cur.stones, &end_margin);) {
      int first = -1;
      if (cur.stones >= s_.tt_min_stones()) {
        if (SolveEntry e; c_.tt.probe(cur.board.key(), e)) first = e.move;
      }
      std::optional<Proven> next;
      for (int k = -1; k < cur.board.m() && !next; ++k) {
        const int i = k < 0 ? first : k;
        if (i < 0 || (k >= 0 && i == first) || cur.board.pit(i) == 0) continue;
        next = achieved(cur, i);
        if (s_.stopped()) return false;
        if (next) pv.push_back(i + 1);
      }
      if (!next) throw std::logic_error("solve: no move achieves the proven value (TT collision?)");
      cur = *next;
    }
    if (cur.future != 2 * cur.board.own_stones() - cur.stones)
      throw std::logic_error("solve: principal variation does not end at the proven value");
    return true;
  }

 private:
  // A board of the principal variation: its stones in pits and its exact future margin.
  struct Proven {
    B board;
    int stones;
    int future;
  };

  // The board after own pit i of `from`, with its exact future margin, when the move keeps
  // from.future (a null-window test on the child); else nullopt.
  std::optional<Proven> achieved(const Proven& from, int i) {
    const auto [board, gain, again] = after_move(from.board, i);
    Proven c{board, from.stones - gain, 0};
    if (again) {
      c.future = from.future - gain;
      if (s_.search(c.board, c.stones, c.future - 1, c.future) >= c.future) return c;
      return std::nullopt;
    }
    c.future = gain - from.future;
    if (s_.search(c.board, c.stones, c.future, c.future + 1) <= c.future) return c;
    return std::nullopt;
  }

  RootContext<B>& c_;
  Search<B>& s_;
};

}  // namespace kalah::solve_detail
