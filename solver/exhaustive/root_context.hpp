// What every phase of a root's solve works on: the root board, its ledger, the team of searches
// and the options; and a root move's null-window test, which the phases share.
#pragma once

#include <atomic>
#include <cstdint>

#include "solver/exhaustive/root_ledger.hpp"
#include "solver/exhaustive/search_team.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah::solve_detail {

// The board after move i of `from`, the stones it banked and whether the mover moves again.
template <class B>
struct MoveResult {
  B board;
  int gain;
  bool again;
};
template <class B>
MoveResult<B> after_move(const B& from, int i) {
  MoveResult<B> r{from, 0, false};
  r.gain = r.board.play(i, r.again);
  return r;
}

template <class B>
struct RootContext {
  const SolveOptions& opt;
  const Position& p;
  const B& root;
  const int n, kd, parity;  // the root's stones in pits, kalah difference, parity of n
  TTView& tt;
  RootLedger& ledger;
  SearchTeam<B>& team;
  std::atomic<int>& beta;  // the root's MTD(f) test under way: future >= beta (progress line)

  MoveResult<B> root_move(int i) const { return after_move(root, i); }

  // The fail-soft bound r on move i's future margin v against level (r >= level: v >= r; else
  // v <= r). run(b, nb, beta) is the null-window test to use (team.test, or one search's).
  template <class Run>
  Test move_test(int i, int level, const Run& run) const {
    return traced(i + 1, level, [&]() -> Test {
      const auto [c, gain, again] = root_move(i);
      if (again) {
        const Test s = run(c, n - gain, level - gain);
        return s ? Test(gain + *s) : std::nullopt;
      }
      const Test s = run(c, n - gain, gain - level + 1);
      return s ? Test(gain - *s) : std::nullopt;
    });
  }

  // test(), the fail-soft bound r on the future margin v of the root (pit 0) or of its move `pit`
  // (1-based) against level (r >= level: v >= r; else v <= r), handed to opt.on_test when set.
  template <class Fn>
  Test traced(int pit, int level, const Fn& test) const {
    if (!opt.on_test) return test();
    const Search<B>& s = team.main();  // on_test needs one thread: it does every test's work
    const std::uint64_t nodes = s.nodes(), expanded = s.expanded(), tops = team.top_tests();
    const Test r = test();
    if (r)
      opt.on_test(RootTest{.pit = pit,
                           .level = kd + level,
                           .holds = *r >= level,
                           .bound = kd + proven_bound(*r, level, parity),
                           .nodes = s.nodes() - nodes,
                           .expanded = s.expanded() - expanded,
                           .best_first = team.top_tests() != tops});
    return r;
  }

  // The null-window test on every thread of the team.
  auto on_every_thread() {
    return [this](const B& b, int nb, int beta) { return team.test(b, nb, beta); };
  }
  // The same where the test is expected to fail (SearchTeam::refute).
  auto refuting_on_every_thread() {
    return [this](const B& b, int nb, int beta) { return team.refute(b, nb, beta); };
  }
  // The null-window test by search s by itself (SearchTeam::test_by: its own best-first top when
  // it has one).
  auto by(Search<B>& s) {
    return [this, &s](const B& b, int nb, int beta) { return team.test_by(s, b, nb, beta); };
  }
};

}  // namespace kalah::solve_detail
