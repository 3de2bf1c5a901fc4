// The solver's root: MTD(f) on the future margin, then each move settled, then the PV.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "root_bounds.hpp"
#include "search.hpp"
#include "search_team.hpp"
#include "solve.hpp"
#include "solve_search.hpp"
#include "stopwatch.hpp"

namespace kalah::solve_detail {

constexpr std::size_t kAutoMemoBytes = std::size_t(64) << 20;
constexpr int kGuessMinStones = 20;  // SolveOptions::guess_depth

// The memo's level count when the options leave it open: a plain minimax of every small position
// pays where the alpha-beta tree is bushy and deep (wetherell: up to n/2 - 2 levels) and costs
// more than it saves where the tree is lean (kalah rules: n/4), so it scales with the root's
// stones in pits n, within min(tt_bytes / 4, 64 MiB) (docs/PERFORMANCE.md, "Solver without the
// database").
template <class B>
int auto_memo_stones(int m, int n, std::size_t tt_bytes) {
  const int want = B::Rules::memo_levels(n);
  const int fits = ExactMemo<B>::stones_for_bytes(m, std::min(tt_bytes / 4, kAutoMemoBytes));
  return std::clamp(std::min(want, fits), 0, ExactMemo<B>::kMaxValue);
}

// The salt of a shared table's keys for boards of m pits under rule set r (TableView): a
// splitmix64 finaliser of both.
inline std::uint64_t table_salt(Rules r, int m) {
  std::uint64_t z = (std::uint64_t(r) << 8 | std::uint64_t(m)) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Solves one root position on board type B (whose rules are B::Rules) in named steps: mtdf() finds
// the root's future margin, settle_moves() which moves achieve it, value_every_move() the other
// moves' margins, principal_variation() a game of optimal moves. Margins at the root are future
// margins plus the root's kalah difference. Every test on a root move narrows that move's proven
// bounds (narrow()), which the result reports whenever the solve stops.
template <class B>
class RootSolver {
 public:
  using Clock = std::chrono::steady_clock;

  RootSolver(const Position& p, const SolveOptions& opt)
      : opt_(opt),
        start_(Clock::now()),
        p_(p),
        root_(p),
        n_(p.pit_stones()),
        kd_(p.kalah_difference()),
        parity_(n_ & 1),
        own_tt_(opt.table != nullptr
                    ? nullptr
                    : std::make_unique<SolveTable>(opt.tt_bytes, SolveTable::Aging::kOff,
                                                   std::max(1, opt.threads))),
        tt_(opt.table != nullptr ? *opt.table : *own_tt_,
            opt.table != nullptr ? table_salt(rules_id<typename B::Rules>, p.m) : 0) {
    // Only probed: TableView's store() is never called on it.
    if (opt.move_source != nullptr)
      move_source_.emplace(const_cast<SolveTable&>(*opt.move_source),
                           table_salt(rules_id<typename B::Rules>, p.m));
  }

  SolveResult run() {
    if (int over; game_over(root_, n_, &over)) {
      res_.complete = true;
      res_.margin = res_.lower = res_.upper = kd_ + over;
      res_.seconds = seconds();
      return res_;
    }
    open_moves();
    if (opt_.resume != nullptr) resume_from(*opt_.resume);
    start_searches();
    if (!mtdf()) return finish();
    if (!opt_.find_moves) {
      res_.complete = true;
      res_.margin = kd_ + lo_;
      return finish();
    }
    if (!settle_moves()) return finish();
    if (opt_.every_move && !value_every_move()) return finish();
    if (opt_.find_pv && !principal_variation()) return finish();
    res_.complete = true;
    res_.margin = kd_ + top_;
    return finish();
  }

  // MTD(f)'s first guess as a margin (solve_guess()).
  int guess_margin() const { return kd_ + first_guess(opt_.cancel); }

  // One null-window test of the root: margin >= beta (solve_test()).
  TestResult run_test(int beta) {
    TestResult t;
    if (int over; game_over(root_, n_, &over)) {
      t.bound = kd_ + over;
      t.at_least = t.bound >= beta;
    } else {
      if (opt_.resume != nullptr)  // known bounds, for the progress line
        narrow_future(lo_, hi_, opt_.resume->lower, opt_.resume->upper);
      start_searches();
      beta_ = beta - kd_;  // what the progress line says is tested
      const Test r = team_->test(root_, n_, beta_);
      t.stopped = !r;
      if (r) {
        t.at_least = *r >= beta - kd_;
        t.bound = kd_ + (t.at_least ? round_up(*r, parity_) : round_down(*r, parity_));
      }
      const SolveResult counts = finish();
      t.nodes = counts.nodes;
      t.expanded = counts.expanded;
    }
    t.seconds = seconds();
    return t;
  }

 private:
  // A legal root move (0-based pit i) and the bounds proven on its future margin v.
  struct MoveState : ProvenBounds {
    int i;
  };

  // The board after root move i, the stones it banked and whether the mover moves again.
  struct RootMove {
    B board;
    int gain;
    bool again;
  };
  RootMove root_move(int i) const {
    RootMove r{root_, 0, false};
    r.gain = r.board.play(i, r.again);
    return r;
  }

  // Each legal move's bounds before any test: v >= 2 gain - n (every stone left in the pits ends
  // in the opponent's kalah), v <= n.
  void open_moves() {
    for (int i = 0; i < root_.m(); ++i)
      if (root_.pit(i) != 0) moves_.push_back({{2 * root_move(i).gain - n_, n_}, i});
  }

  // Bounds lo <= v <= hi on a future margin v narrowed by proven bounds lower <= margin <= upper
  // (a margin is the future plus the root's kalah difference; both bounds keep n's parity).
  void narrow_future(int& lo, int& hi, int lower, int upper) const {
    lo = std::max(lo, round_up(lower - kd_, parity_));
    hi = std::min(hi, round_down(upper - kd_, parity_));
  }

  // Starts from the bounds an earlier solve of this root proved (SolveOptions::resume): the root's
  // and each move's. A lower bound above every move's opening bound was proven by a test that
  // succeeded, which ends the MTD(f) phase when the moves are wanted (mtdf()).
  void resume_from(const SolveResult& r) {
    int opening = -n_;
    for (const MoveState& m : moves_) opening = std::max(opening, m.lower);
    narrow_future(lo_, hi_, r.lower, r.upper);
    for (const MoveBound& b : r.moves) {
      const int i = b.pit - 1;
      if (i < 0 || i >= root_.m() || root_.pit(i) == 0) continue;
      MoveState& m = move_state(i);
      narrow_future(m.lower, m.upper, b.lower, b.upper);
    }
    if (lo_ > hi_) throw std::invalid_argument("solve: the resumed bounds are empty");
    resumed_success_ = lo_ > opening;
    announced_ = proven_so_far();  // the caller has these bounds: no announcement repeats them
  }

  // The memo, the resident table, the main search and opt.threads - 1 helper searches, the
  // progress report and the deadline. The memo is left out where the oracle answers its levels.
  void start_searches() {
    const int threads = std::max(1, opt_.threads);
    const int memo_stones = opt_.memo_stones >= 0
                                ? std::min(opt_.memo_stones, ExactMemo<B>::kMaxValue)
                                : auto_memo_stones<B>(p_.m, n_, opt_.tt_bytes);
    const int oracle_max = opt_.oracle != nullptr ? opt_.oracle->max_stones() : -1;
    if (memo_stones > 0 && memo_stones > oracle_max) {
      memo_ = std::make_unique<ExactMemo<B>>(p_.m, memo_stones);
      memo_->set_oracle(opt_.oracle);
    }
    const auto* resident = dynamic_cast<const Probe*>(opt_.oracle);
    if (resident != nullptr && (!resident->resident() || resident->table().m != p_.m ||
                                resident->table().rules != rules_id<typename B::Rules>))
      resident = nullptr;  // the generic path answers (or declines) through future()
    const int untabled = opt_.untabled_above_db >= 0 ? opt_.untabled_above_db
                         : resident != nullptr && B::Rules::kUntabledAboveResident
                             ? kUntabledAboveResident
                             : 0;
    team_ =
        std::make_unique<SearchTeam<B>>(threads, tt_, opt_.oracle, memo_.get(), resident, untabled);
    if (move_source_) team_->for_each([this](Search<B>& s) { s.set_move_source(&*move_source_); });
    if (opt_.trace_expanded) {
      if (threads != 1) throw std::invalid_argument("solve: trace_expanded needs one thread");
      team_->main().set_expand_trace(&opt_.trace_expanded);
    }
    std::function<void()> report;
    if (opt_.progress) report = [this] { report_progress(); };
    std::optional<Clock::time_point> deadline;
    if (opt_.max_seconds > 0)
      deadline = start_ + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(opt_.max_seconds));
    team_->set_limits(deadline, opt_.cancel, report);
  }

  // MTD(f): null-window tests f >= beta, each moving one bound, until the bounds meet. Both bounds
  // keep the parity of n (so does every future margin), so each test rules out two values. When
  // the moves are wanted, the root tests stop at the first that succeeds (those the helpers run
  // while the first guess is computed may go further: tests_beside_guess()): settle_moves()
  // finishes the proof. False when stopped; lo_ <= future <= hi_ hold either way.
  bool mtdf() {
    if ((resumed_success_ && opt_.find_moves) || lo_ >= hi_) return true;
    std::optional<int> guess;  // the next test's
    if (!wants_guess()) {
      guess = 0;
    } else if (team_->alone()) {
      guess = first_guess(opt_.cancel);
    } else {
      const std::optional<GuessRounds> g = tests_beside_guess();
      if (!g) return false;
      if (g->engine > lo_ && g->engine <= hi_) {
        guess = g->engine;  // the guess's test is still open: it is next
      } else if (g->succeeded && opt_.find_moves) {
        return true;
      } else {
        guess = g->last;
      }
    }
    while (lo_ < hi_) {
      beta_ = test_beta(*guess);
      const Test r = team_->test(root_, n_, beta_);
      if (!r) return false;
      record_test(*r);
      guess = *r;
      if (*r >= beta_ && opt_.find_moves) break;
    }
    return true;
  }

  // What the helpers' tests beside the engine's guess left: the guess, the last test's fail-soft
  // answer (the guess's own test when it was one of them) and whether any test succeeded.
  struct GuessRounds {
    int engine;
    int last;
    bool succeeded;
  };

  // MTD(f) on the helpers while this thread runs the engine for the first guess: they test
  // guess 0's test, then each test MTD(f) takes next from the last answer (a success does not end
  // them: the threads would otherwise wait for the guess). When the guess arrives, the test under
  // way goes on, this thread joining it, if it is the guess's test, or, when the answers already
  // decide whether the future reaches the guess, MTD(f)'s next one (unless a test succeeded and
  // the moves are wanted, which ends MTD(f)); otherwise it is stopped (its table entries stay).
  // When the tests meet the bounds (or stop, or a thread leaves on an error) first, the engine is
  // stopped: its guess can no longer matter (a cancel of the solve stops the helpers, hence the
  // engine too). nullopt when stopped before the bounds met.
  std::optional<GuessRounds> tests_beside_guess() {
    struct Round {
      std::atomic<bool> over{false};  // answered, ended by the guess, or stopped: threads stop
      bool answered = false;
      int beta = 0;
    };
    std::deque<Round> rounds;  // the tests in order; the last one is under way unless over
    std::mutex rounds_mutex;   // guards rounds, arrived, result and stopped (then moves_mutex_)
    bool arrived = false;      // the engine's guess is in result.engine
    bool stopped = false;      // the deadline, a cancel or a failure
    std::atomic<bool> moot{false};  // the bounds met, the tests stopped or a thread left
    GuessRounds result{0, 0, false};
    rounds.emplace_back().beta = beta_ = test_beta(0);
    // Each thread: the test under way, until none is (the guess ended it, it was answered after
    // the guess arrived, the bounds met, or the solve stopped).
    const auto take_rounds = [&](Search<B>& s) {
      for (;;) {
        Round* round;
        {
          std::lock_guard lock(rounds_mutex);
          if (stopped || rounds.back().over) return;
          round = &rounds.back();
        }
        s.set_parallel(&round->over, team_->busy());
        s.restart();
        const int r = s.search(root_, n_, round->beta - 1, round->beta);
        std::lock_guard lock(rounds_mutex);
        if (s.stopped()) {
          if (round->over) continue;  // another thread answered it, or the guess ended it
          round->over = stopped = moot = true;
          return;
        }
        if (round->answered) continue;         // another thread's answer came first
        round->answered = round->over = true;  // also when the guess ended it: a proof stands
        beta_ = round->beta;
        record_test(r);
        result.last = r;
        result.succeeded |= r >= round->beta;
        if (lo_ >= hi_)
          moot = true;
        else if (!arrived)
          rounds.emplace_back().beta = beta_ = test_beta(r);
      }
    };
    team_->on_all_threads([&](Search<B>& s) {
      // However this thread leaves (an exception too), the engine need not go on for it, and
      // the search is given the team's stop again for the later phases.
      struct Leave {
        std::atomic<bool>& moot;
        Search<B>& s;
        SearchTeam<B>& team;
        ~Leave() {
          moot = true;
          s.set_parallel(team.stop(), team.busy());
        }
      } leave{moot, s, *team_};
      if (&s == &team_->main()) {
        const int engine = first_guess(&moot);
        std::lock_guard lock(rounds_mutex);
        arrived = true;
        result.engine = engine;
        Round& now = rounds.back();
        const bool keep = engine > lo_ && engine <= hi_ ? now.beta == test_beta(engine)
                                                        : !(result.succeeded && opt_.find_moves);
        if (!keep) now.over = true;
      }
      take_rounds(s);
    });
    if (stopped && lo_ < hi_) return std::nullopt;
    return result;
  }

  // The root's bounds after the test against beta_ answered r (fail-soft), announced.
  void record_test(int r) {
    {
      std::lock_guard lock(moves_mutex_);
      if (r >= beta_)
        lo_ = round_up(r, parity_);
      else
        hi_ = round_down(r, parity_);
    }
    announce();
  }

  // The null-window test MTD(f) makes for a guess: within the open bounds, of n's parity.
  int test_beta(int guess) const { return round_up(std::clamp(guess, lo_ + 1, hi_), parity_); }

  // Whether MTD(f)'s first guess comes from the engine: the root has kGuessMinStones or more
  // stones in pits beyond the database (and opt.guess_depth > 0); else the guess is 0.
  bool wants_guess() const {
    const int covered = opt_.oracle != nullptr ? std::max(opt_.oracle->max_stones(), 0) : 0;
    return opt_.guess_depth > 0 && n_ - covered >= kGuessMinStones;
  }

  // MTD(f)'s first guess as a future margin: the play-time engine's value at opt.guess_depth
  // plies when wants_guess(), else 0; cut short (a shallower guess) once *cancel is true.
  int first_guess(const std::atomic<bool>* cancel) const {
    if (!wants_guess()) return 0;
    SearchOptions eo;
    eo.oracle = opt_.oracle;
    eo.randomize = false;
    eo.tt_bytes = std::size_t(32) << 20;
    SearchLimits limits;
    limits.depth = opt_.guess_depth;
    limits.cancel = cancel;
    if (opt_.max_seconds > 0) limits.seconds = opt_.max_seconds / 4;
    return Searcher(rules_id<typename B::Rules>, eo).search(p_, limits).value - kd_;
  }

  // Each move's future margin v (for the side to move at the root) is settled against the best
  // found so far: "v >= level?" with level = max(lo, top), and a move that reaches it climbs by
  // further tests until one fails. A move that fails is not best; the root's margin is the
  // highest v. No move but the best is ever refuted twice. False when stopped; else top_ is the
  // root's future margin and res_.best_moves the moves that achieve it.
  bool settle_moves() {
    std::vector<int> order;  // the stored best move first: it usually sets top_
    if (n_ >= team_->main().table_min_stones()) {
      if (SolveEntry e; tt_.probe(root_.key(), e) && e.move >= 0 && root_.pit(e.move) > 0)
        order.push_back(e.move);
    }
    for (int i = 0; i < root_.m(); ++i)
      if (root_.pit(i) > 0 && (order.empty() || order[0] != i)) order.push_back(i);
    const auto on_every_thread = [this](const B& b, int nb, int beta) {
      return team_->test(b, nb, beta);
    };
    const Test first = settle(order[0], lo_, on_every_thread, move_phase(order, 0));
    if (!first) return false;
    record(order[0], *first);
    if (team_->alone() || order.size() < 3) {
      for (std::size_t k = 1; k < order.size(); ++k) {
        const Test v = settle(order[k], std::max(lo_, top_), on_every_thread, move_phase(order, k));
        if (!v) return false;
        record(order[k], *v);
      }
    } else if (!settle_one_per_thread(order)) {
      return false;
    }
    if (top_ < lo_)
      throw std::logic_error("solve: no move achieves the proven bound (TT collision?)");
    std::sort(res_.best_moves.begin(), res_.best_moves.end());
    {
      std::lock_guard lock(moves_mutex_);
      lo_ = hi_ = top_;
      settled_ = true;
    }
    announce();
    return true;
  }

  // The moves after the first, one per thread at a time, each against the same level: most of
  // them only prove v < level, and those proofs share no root. A thread that finds no move left
  // joins the unfinished move with the fewest threads on it, so the last moves are not searched
  // by one thread while the others wait; a move's threads stop when one of them settles it.
  bool settle_one_per_thread(const std::vector<int>& order) {
    const int level = std::max(lo_, top_);
    struct Job {
      std::atomic<bool> done{false};  // settled (or the solve stopped): its threads stop
      std::atomic<int> threads{0};
      Test got;  // written once, by the thread that set `done` by settling it
    };
    std::vector<Job> jobs(order.size());
    // The phase names every unsettled move with the margin its test is against: the level, or
    // above the lower bound a test proved (settle() climbs from there).
    const auto show = [&] {
      std::lock_guard lock(moves_mutex_);
      phase_ = "one per thread, margin tests:";
      const char* sep = " pit ";
      for (std::size_t k = 1; k < order.size(); ++k) {
        if (jobs[k].done) continue;
        const int lower = move_state(order[k]).lower;
        phase_.append(sep).append(std::to_string(order[k] + 1));
        phase_.append(" >= ").append(std::to_string(kd_ + (lower >= level ? lower + 2 : level)));
        sep = ", pit ";
      }
    };
    show();
    std::atomic<std::size_t> next{1};
    std::atomic<bool> failed{false};
    // The next move for a thread: an unclaimed one, else the unfinished one with fewest threads.
    const auto pick = [&]() -> std::size_t {
      if (const std::size_t k = next++; k < order.size()) return k;
      std::size_t best = 0;
      for (std::size_t k = 1; k < order.size(); ++k)
        if (!jobs[k].done && (best == 0 || jobs[k].threads < jobs[best].threads)) best = k;
      return best;  // 0: every move is settled
    };
    team_->on_all_threads([&](Search<B>& s) {
      const auto alone = [&s](const B& b, int nb, int beta) {
        return SearchTeam<B>::test_alone(s, b, nb, beta);
      };
      for (std::size_t k; !failed && (k = pick()) != 0;) {
        Job& job = jobs[k];
        ++job.threads;
        s.set_parallel(&job.done, team_->busy());
        s.restart();
        const Test v = settle(order[k], level, alone, [&](int) { show(); });
        --job.threads;
        if (v) {
          if (!job.done.exchange(true)) job.got = v;
          show();
        } else if (!job.done) {  // the deadline or a cancel, not another thread settling k
          failed = true;
          for (Job& j : jobs) j.done = true;
        }
      }
      s.set_parallel(team_->stop(), team_->busy());  // the shared stop again, for the later phases
    });
    if (failed) return false;
    for (std::size_t k = 1; k < order.size(); ++k) record(order[k], *jobs[k].got);
    return true;
  }

  // Move i's exact v when v >= level, else -n - 1 (v < level); nullopt at the deadline. run(b, nb,
  // beta) is the null-window test to use; `show(level)` names each test in the progress line.
  template <class Run, class Show>
  Test settle(int i, int level, const Run& run, const Show& show) {
    int v = -n_ - 1;
    while (true) {
      show(level);
      Test r = decided(i, level);
      if (!r) r = move_test(i, level, run);
      if (!r) return std::nullopt;
      narrow(i, level, *r);
      announce();
      if (*r < level) return v;
      v = std::min(round_up(*r, parity_), hi_);
      if (v == hi_) return v;  // no move does better
      level = v + 2;
    }
  }

  // The fail-soft bound r on move i's v against level (r >= level: v >= r; else v <= r).
  template <class Run>
  Test move_test(int i, int level, const Run& run) {
    const auto [c, gain, again] = root_move(i);
    if (again) {
      const Test s = run(c, n_ - gain, level - gain);
      return s ? Test(gain + *s) : std::nullopt;
    }
    const Test s = run(c, n_ - gain, gain - level + 1);
    return s ? Test(gain - *s) : std::nullopt;
  }

  // The result of move i's test against level when its proven bounds already give it (a resumed
  // solve): its lower bound when that reaches level, its upper bound when that is below it.
  Test decided(int i, int level) {
    const auto [lower, upper] = bounds_of(i);
    if (lower >= level) return lower;
    if (upper < level) return upper;
    return std::nullopt;
  }

  // Move i has future margin v: best so far, tied with the best, or not best.
  void record(int i, int v) {
    if (v < std::max(lo_, top_)) return;
    if (v > top_) {
      top_ = v;
      res_.best_moves.clear();
    }
    res_.best_moves.push_back(i + 1);
  }

  // The margins of the moves that settle_moves() left bounded: each move's MTD(f) from its bounds,
  // one move after the other, each test on every thread. False when stopped.
  bool value_every_move() {
    const auto on_every_thread = [this](const B& b, int nb, int beta) {
      return team_->test(b, nb, beta);
    };
    for (const MoveState& m : std::vector<MoveState>(moves_)) {
      if (bounds_of(m.i).first == bounds_of(m.i).second) continue;
      if (!prove_move(m.i, on_every_thread)) return false;
    }
    return true;
  }

  // Move i's margin v by MTD(f) from its proven bounds, each test at the highest margin still
  // possible: a failing test is cheap next to one that succeeds (which must find a defence
  // against every reply), and from above the only test that succeeds is the one at v itself.
  // Under rule sets with R::kDefenceRounds the root's side searches its defences in budgeted
  // rounds (Search::set_defence_rounds). False when stopped.
  template <class Run>
  bool prove_move(int i, const Run& run) {
    if constexpr (B::Rules::kDefenceRounds) {
      const int defender = root_move(i).again ? 0 : 1;  // the root's side, seen from the child
      team_->for_each([defender](Search<B>& s) {
        s.set_defence_rounds(defender, kDefencePlies, kDefenceBudget);
      });
    }
    bool proven = true;
    for (auto [lower, upper] = bounds_of(i); lower < upper; std::tie(lower, upper) = bounds_of(i)) {
      set_phase("pit " + std::to_string(i + 1) + ": test margin >= " + std::to_string(kd_ + upper));
      const Test r = move_test(i, upper, run);
      if (!r) {
        proven = false;
        break;
      }
      narrow(i, upper, *r);
      announce();
    }
    team_->for_each([](Search<B>& s) { s.set_defence_rounds(-1, 0, 0); });
    return proven;
  }

  // The defence rounds of the analysis (prove_move): within 8 moves of the test's root, 100,000
  // nodes a move in the first round (docs/PERFORMANCE.md, "Where a proof goes: the defences").
  static constexpr int kDefencePlies = 8;
  static constexpr std::uint64_t kDefenceBudget = 100000;

  std::function<void(int)> move_phase(const std::vector<int>& order, std::size_t k) {
    return [this, &order, k](int level) {
      set_phase("pit " + std::to_string(order[k] + 1) + " (" + std::to_string(k + 1) + " of " +
                std::to_string(order.size()) + "): test margin >= " + std::to_string(kd_ + level));
    };
  }

  // A board of the principal variation: its stones in pits and its exact future margin.
  struct Proven {
    B board;
    int stones;
    int future;
  };

  // From the root, a move that keeps the proven future margin at every ply, to the end of the
  // game (searched by this thread alone). False when stopped.
  bool principal_variation() {
    team_->main().set_parallel(nullptr, nullptr);
    team_->main().restart();
    set_phase("principal variation");
    Proven cur{root_, n_, top_};
    for (int end_margin; !game_over(cur.board, cur.stones, &end_margin);) {
      int first = -1;
      if (cur.stones >= team_->main().table_min_stones()) {
        if (SolveEntry e; tt_.probe(cur.board.key(), e)) first = e.move;
      }
      std::optional<Proven> next;
      for (int k = -1; k < cur.board.m() && !next; ++k) {
        const int i = k < 0 ? first : k;
        if (i < 0 || (k >= 0 && i == first) || cur.board.pit(i) == 0) continue;
        next = achieved(cur, i);
        if (team_->main().stopped()) return false;
        if (next) res_.pv.push_back(i + 1);
      }
      if (!next) throw std::logic_error("solve: no move achieves the proven value (TT collision?)");
      cur = *next;
    }
    if (cur.future != 2 * cur.board.own_stones() - cur.stones)
      throw std::logic_error("solve: principal variation does not end at the proven value");
    return true;
  }

  // The board after own pit i of `from`, with its exact future margin, when the move keeps
  // from.future (a null-window test on the child); else nullopt.
  std::optional<Proven> achieved(const Proven& from, int i) {
    Proven c{from.board, 0, 0};
    bool again;
    const int gain = c.board.play(i, again);
    c.stones = from.stones - gain;
    if (again) {
      c.future = from.future - gain;
      if (team_->main().search(c.board, c.stones, c.future - 1, c.future) >= c.future) return c;
      return std::nullopt;
    }
    c.future = gain - from.future;
    if (team_->main().search(c.board, c.stones, c.future, c.future + 1) <= c.future) return c;
    return std::nullopt;
  }

  // The status line: every thread's nodes, the bounds, the test and where this thread's search
  // is (line_text()).
  void report_progress() {
    const double s = seconds();
    const std::uint64_t nodes = team_->polled_nodes();
    std::string phase;
    int lo, hi;  // helpers record root tests too (tests_beside_guess)
    {
      std::lock_guard lock(moves_mutex_);
      phase = phase_;
      lo = lo_;
      hi = hi_;
    }
    char line[160];
    std::snprintf(line, sizeof line, "solve: %.0f s, %.3g nodes (%.3g/s), margin in [%d, %d], ", s,
                  double(nodes), nodes / std::max(s, 1e-9), kd_ + lo, kd_ + hi);
    opt_.progress(line +
                  (phase.empty() ? "value: test margin >= " + std::to_string(kd_ + beta_) : phase) +
                  line_text());
  }
  // ", line 4 (1/6) 2 (3/5)": the moves this thread is searching from the tested position, each
  // a pit with its rank among its node's moves in the order tried and the node's moves.
  std::string line_text() const {
    std::string text;
    for (const auto& step : team_->main().line()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %d (%d/%d)", step.pit + 1, step.rank, step.moves);
      text.append(buf);
    }
    return text.empty() ? text : text.insert(0, ", line");
  }
  void set_phase(std::string phase) {
    std::lock_guard lock(moves_mutex_);
    phase_ = std::move(phase);
  }

  // What a test of root move i against `level` proved: r >= level proves v >= r, else v <= r.
  void narrow(int i, int level, int r) {
    std::lock_guard lock(moves_mutex_);
    move_state(i).narrow(r >= level, r, parity_);
  }
  // Move i's proven bounds on v, the root's upper bound included (no move does better).
  std::pair<int, int> bounds_of(int i) {
    std::lock_guard lock(moves_mutex_);
    const MoveState& m = move_state(i);
    return {m.lower, std::min(m.upper, hi_)};
  }
  MoveState& move_state(int i) {
    return *std::find_if(moves_.begin(), moves_.end(),
                         [i](const MoveState& m) { return m.i == i; });
  }

  // Passes what is proven so far to opt.on_proven, when it says more than the last it passed
  // (a test can prove what is known: a resumed bound, another thread's test, a root bound the
  // moves' bounds already implied).
  void announce() {
    if (!opt_.on_proven) return;
    std::lock_guard lock(moves_mutex_);
    SolveResult so_far = proven_so_far();
    if (announced_ && so_far.lower == announced_->lower && so_far.upper == announced_->upper &&
        so_far.moves == announced_->moves && so_far.best_moves == announced_->best_moves)
      return;
    so_far.seconds = seconds();
    opt_.on_proven(so_far);
    announced_ = std::move(so_far);
  }
  // What is proven so far, as announce() passes it (moves_mutex_ held, or no search running).
  SolveResult proven_so_far() const {
    SolveResult so_far = res_;
    if (!settled_) so_far.best_moves.clear();  // the moves recorded so far may not be best
    fill_bounds(so_far);
    return so_far;
  }
  // r's lower, upper and moves from what the root's tests and every move's tests proved
  // (moves_mutex_ held): a root margin is at least its lower bound and every move's, at most its
  // upper bound and the best of the moves' upper bounds.
  void fill_bounds(SolveResult& r) const {
    r.moves.clear();
    for (const MoveState& m : moves_)
      r.moves.push_back({m.i + 1, kd_ + m.lower, kd_ + std::min(m.upper, hi_)});
    const auto [lower, upper] = root_bounds(moves_, lo_, hi_);
    r.lower = kd_ + lower;
    r.upper = kd_ + upper;
  }

  // The result with every thread's counts.
  SolveResult finish() {
    if (team_) team_->count_into(res_);
    {
      std::lock_guard lock(moves_mutex_);
      fill_bounds(res_);
    }
    res_.seconds = seconds();
    if (team_)
      res_.idle_seconds = std::max(0.0, team_->helpers() * res_.seconds - team_->helper_seconds());
    return res_;
  }

  double seconds() const { return seconds_since(start_); }

  const SolveOptions& opt_;
  const Clock::time_point start_;
  const Position& p_;
  const B root_;
  const int n_, kd_, parity_;     // the root's stones in pits, kalah difference, parity of n
  int lo_ = -n_, hi_ = n_;        // proven lo_ <= future <= hi_
  std::atomic<int> beta_ = 0;     // the MTD(f) test under way: future >= beta_
  int top_ = -n_ - 1;             // the highest move value settled, achieved by res_.best_moves
  std::vector<MoveState> moves_;  // ascending pit
  std::mutex moves_mutex_;        // guards moves_, phase_ and the calls of opt.on_proven
  std::string phase_;             // empty: root MTD(f) tests; else what the solve is doing
  bool settled_ = false;          // res_.best_moves are proven
  std::optional<SolveResult> announced_;  // the last result passed to opt.on_proven
  bool resumed_success_ = false;          // resume_from(): a root test had succeeded
  std::unique_ptr<SolveTable> own_tt_;    // null when opt.table is given
  std::optional<TableView> move_source_;  // opt.move_source, salted as its solve's `table` was
  TableView tt_;
  std::unique_ptr<ExactMemo<B>> memo_;
  std::unique_ptr<SearchTeam<B>> team_;  // from start_searches()
  SolveResult res_;
};

// Solves p on board type B; solve() picks B.
template <class B>
SolveResult solve_on(const Position& p, const SolveOptions& opt) {
  return RootSolver<B>(p, opt).run();
}

}  // namespace kalah::solve_detail
