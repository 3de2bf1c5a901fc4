// MTD(f) at a solve's root: null-window tests from a first guess until the root's bounds meet,
// the helper threads testing beside the engine while it computes the guess.
#pragma once

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <optional>

#include "engine/search.hpp"
#include "solver/exhaustive/root_context.hpp"

namespace kalah::solve_detail {

constexpr int kGuessMinStones = 20;  // SolveOptions::guess_depth

// Whether MTD(f)'s first guess comes from the engine: the root has kGuessMinStones or more stones
// in pits (n) beyond the database (and opt.guess_depth > 0); else the guess is 0.
inline bool wants_guess(const SolveOptions& opt, int n) {
  const int covered = opt.oracle != nullptr ? std::max(opt.oracle->max_stones(), 0) : 0;
  return opt.guess_depth > 0 && n - covered >= kGuessMinStones;
}

// MTD(f)'s first guess for root p (n stones in pits, kalah difference kd) as a future margin: the
// play-time engine's value at opt.guess_depth plies when wants_guess(), else 0; cut short (a
// shallower guess) once *cancel is true.
template <class B>
int first_guess(const SolveOptions& opt, const Position& p, int n, int kd,
                const std::atomic<bool>* cancel) {
  if (!wants_guess(opt, n)) return 0;
  SearchOptions eo;
  eo.oracle = opt.oracle;
  eo.randomize = false;
  eo.tt_bytes = std::size_t(32) << 20;
  SearchLimits limits;
  limits.depth = opt.guess_depth;
  limits.cancel = cancel;
  if (opt.max_seconds > 0) limits.seconds = opt.max_seconds / 4;
  return Searcher(rules_id<typename B::Rules>, eo).search(p, limits).value - kd;
}

// MTD(f) on the helpers while the main thread runs the engine for the first guess: they test
// guess 0's test, then each test MTD(f) takes next from the last answer (a success does not end
// them: the threads would otherwise wait for the guess). When the guess arrives, the test under
// way goes on, the main thread joining it, if it is the guess's test, or, when the answers already
// decide whether the future reaches the guess, MTD(f)'s next one (unless a test succeeded and the
// moves are wanted, which ends MTD(f)); otherwise it is stopped (its TT entries stay). When the
// tests meet the bounds (or stop, or a thread leaves on an error) first, the engine is stopped:
// its guess can no longer matter (a cancel of the solve stops the helpers, hence the engine too).
template <class B>
class TestsBesideGuess {
 public:
  // What the tests left: the engine's guess, the last test's fail-soft answer (the guess's own
  // test when it was one of them) and whether any test succeeded.
  struct Result {
    int engine;
    int last;
    bool succeeded;
  };

  explicit TestsBesideGuess(RootContext<B>& c) : c_(c) {}

  // nullopt when stopped before the bounds met.
  std::optional<Result> run() {
    rounds_.emplace_back().beta = c_.beta = c_.ledger.test_beta(0);
    c_.team.on_all_threads([this](Search<B>& s) {
      StopScope<B> scope(c_.team, s);
      // However this thread leaves (an exception too), the engine need not go on for it.
      struct Leave {
        std::atomic<bool>& moot;
        ~Leave() { moot = true; }
      } leave{moot_};
      if (&s == &c_.team.main()) engine_arrives();
      take_rounds(s, scope);
    });
    if (stopped_ && c_.ledger.lo() < c_.ledger.hi()) return std::nullopt;
    return result_;
  }

 private:
  struct Round {
    std::atomic<bool> over{false};  // answered, ended by the guess, or stopped: threads stop
    bool answered = false;
    int beta = 0;
  };

  // The main thread: the engine's guess, which keeps the test under way or ends it.
  void engine_arrives() {
    const int engine = first_guess<B>(c_.opt, c_.p, c_.n, c_.kd, &moot_);
    std::lock_guard lock(mutex_);
    arrived_ = true;
    result_.engine = engine;
    Round& now = rounds_.back();
    const bool keep = engine > c_.ledger.lo() && engine <= c_.ledger.hi()
                          ? now.beta == c_.ledger.test_beta(engine)
                          : !(result_.succeeded && c_.opt.find_moves);
    if (!keep) now.over = true;
  }

  // The test under way, until none is (the guess ended it, it was answered after the guess
  // arrived, the bounds met, or the solve stopped).
  void take_rounds(Search<B>& s, StopScope<B>& scope) {
    for (;;) {
      Round* round;
      {
        std::lock_guard lock(mutex_);
        if (stopped_ || rounds_.back().over) return;
        round = &rounds_.back();
      }
      scope.use(&round->over);
      s.restart();
      const int r = s.search(c_.root, c_.n, round->beta - 1, round->beta);
      std::lock_guard lock(mutex_);
      if (s.stopped()) {
        if (round->over) continue;  // another thread answered it, or the guess ended it
        round->over = stopped_ = moot_ = true;
        return;
      }
      if (round->answered) continue;         // another thread's answer came first
      round->answered = round->over = true;  // also when the guess ended it: a proof stands
      c_.beta = round->beta;
      c_.ledger.record_test(round->beta, r);
      result_.last = r;
      result_.succeeded |= r >= round->beta;
      if (c_.ledger.lo() >= c_.ledger.hi())
        moot_ = true;
      else if (!arrived_)
        rounds_.emplace_back().beta = c_.beta = c_.ledger.test_beta(r);
    }
  }

  RootContext<B>& c_;
  std::deque<Round> rounds_;  // the tests in order; the last one is under way unless over
  std::mutex mutex_;          // guards rounds_, arrived_, result_ and stopped_ (then the ledger's)
  bool arrived_ = false;      // the engine's guess is in result_.engine
  bool stopped_ = false;      // the deadline, a cancel or a failure
  std::atomic<bool> moot_{false};  // the bounds met, the tests stopped or a thread left
  Result result_{0, 0, false};
};

// MTD(f): null-window tests f >= beta, each moving one bound, until the bounds meet. Both bounds
// keep the parity of n (so does every future margin), so each test rules out two values. When
// the moves are wanted, the root tests stop at the first that succeeds (those the helpers run
// while the first guess is computed may go further: TestsBesideGuess), and the moves' settling
// finishes the proof; so does a resumed solve whose root test had succeeded (resumed_success).
// False when stopped; the ledger's bounds hold either way.
template <class B>
bool root_mtdf(RootContext<B>& c, bool resumed_success) {
  RootLedger& ledger = c.ledger;
  if ((resumed_success && c.opt.find_moves) || ledger.lo() >= ledger.hi()) return true;
  std::optional<int> guess;  // the next test's
  if (!wants_guess(c.opt, c.n)) {
    guess = 0;
  } else if (c.team.alone()) {
    guess = first_guess<B>(c.opt, c.p, c.n, c.kd, c.opt.cancel);
  } else {
    const auto g = TestsBesideGuess<B>(c).run();
    if (!g) return false;
    if (g->engine > ledger.lo() && g->engine <= ledger.hi()) {
      guess = g->engine;  // the guess's test is still open: it is next
    } else if (g->succeeded && c.opt.find_moves) {
      return true;
    } else {
      guess = g->last;
    }
  }
  while (ledger.lo() < ledger.hi()) {
    const int beta = c.beta = ledger.test_beta(*guess);
    // Above the guess the test is expected to fail.
    const Test r = c.traced(0, beta, [&] {
      return beta > round_up(*guess, c.parity) ? c.team.refute(c.root, c.n, beta)
                                               : c.team.test(c.root, c.n, beta);
    });
    if (!r) return false;
    ledger.record_test(beta, *r);
    guess = *r;
    if (*r >= beta && c.opt.find_moves) break;
  }
  return true;
}

}  // namespace kalah::solve_detail
