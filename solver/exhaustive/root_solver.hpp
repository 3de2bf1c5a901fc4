// The solver's root: MTD(f) on the future margin, then each move settled, then the every-move
// analysis and the PV (each phase in a root_*.hpp of its own), over the searches set up here.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/stopwatch.hpp"
#include "solver/exhaustive/proof_tree.hpp"
#include "solver/exhaustive/root_analysis.hpp"
#include "solver/exhaustive/root_context.hpp"
#include "solver/exhaustive/root_ledger.hpp"
#include "solver/exhaustive/root_mtdf.hpp"
#include "solver/exhaustive/root_settle.hpp"
#include "solver/exhaustive/search_team.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_search.hpp"
#include "solver/exhaustive/solve_tuning.hpp"

namespace kalah::solve_detail {

constexpr std::size_t kAutoMemoBytes = std::size_t(64) << 20;

// The memo's level count when the options leave it open: a plain minimax of every small position
// pays where the alpha-beta tree is bushy and deep (wetherell: up to n/2 - 2 levels) and costs
// more than it saves where the tree is lean (kalah rules: n/4), so it scales with the root's
// stones in pits n, within min(tt_bytes / 4, 64 MiB) (docs/PERFORMANCE.md, "Solver without the
// database").
template <class B>
int auto_memo_stones(int m, int n, std::size_t tt_bytes) {
  const int want = SolveTuning<typename B::Rules>::memo_levels(n);
  const int fits = ExactMemo<B>::stones_for_bytes(m, std::min(tt_bytes / 4, kAutoMemoBytes));
  return std::clamp(std::min(want, fits), 0, ExactMemo<B>::kMaxValue);
}

// The salt of a shared TT's keys for boards of m pits under rule set r (TTView): a
// splitmix64 finaliser of both.
inline std::uint64_t tt_salt(Rules r, int m) {
  std::uint64_t z = (std::uint64_t(r) << 8 | std::uint64_t(m)) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Solves one root position on board type B (whose rules are B::Rules) in named steps: root_mtdf()
// finds the root's future margin, MoveSettler which moves achieve it, value_every_move() the other
// moves' margins, PrincipalVariation a game of optimal moves. Margins at the root are future
// margins plus the root's kalah difference. Every test on a root move narrows that move's proven
// bounds in the ledger, which the result reports whenever the solve stops.
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
        ledger_(n_, kd_, opt.on_proven, start_),
        own_tt_(opt.tt != nullptr
                    ? nullptr
                    : std::make_unique<SolveTT>(opt.tt_bytes, SolveTT::Aging::kOff,
                                                std::max(1, opt.threads), opt.tt_start_bytes)),
        tt_(opt.tt != nullptr ? *opt.tt : *own_tt_,
            opt.tt != nullptr ? tt_salt(rules_id<typename B::Rules>, p.m) : 0) {
    // Only probed: TTView's store() is never called on it.
    if (opt.move_source != nullptr)
      move_source_.emplace(const_cast<SolveTT&>(*opt.move_source),
                           tt_salt(rules_id<typename B::Rules>, p.m));
  }

  SolveResult run() {
    if (int over; game_over(root_, n_, &over)) {
      res_.complete = true;
      res_.margin = res_.lower = res_.upper = kd_ + over;
      res_.seconds = seconds();
      return res_;
    }
    open_moves();
    const bool resumed_success = opt_.resume != nullptr && ledger_.resume(*opt_.resume);
    start_searches();
    RootContext<B> c = context();
    if (!root_mtdf(c, resumed_success)) return finish();
    if (!opt_.find_moves) {
      res_.complete = true;
      res_.margin = kd_ + ledger_.lo();
      return finish();
    }
    if (!MoveSettler<B>(c).run()) return finish();
    if (opt_.every_move && !value_every_move(c)) return finish();
    if (opt_.find_pv && !PrincipalVariation<B>(c).run(ledger_.top(), res_.pv)) return finish();
    res_.complete = true;
    res_.margin = kd_ + ledger_.top();
    return finish();
  }

  // MTD(f)'s first guess as a margin (solve_guess()).
  int guess_margin() const { return kd_ + first_guess<B>(opt_, p_, n_, kd_, opt_.cancel); }

  // One null-window test of the root: margin >= beta (solve_test()); through the refutation top
  // when one is kept and expect_failure.
  TestResult run_test(int beta, bool expect_failure) {
    TestResult t;
    if (int over; game_over(root_, n_, &over)) {
      t.bound = kd_ + over;
      t.at_least = t.bound >= beta;
    } else {
      if (opt_.resume != nullptr)  // known bounds, for the progress line
        ledger_.narrow_root(opt_.resume->lower, opt_.resume->upper);
      start_searches();
      beta_ = beta - kd_;  // what the progress line says is tested
      const Test r = context().traced(0, beta_, [&] {
        return expect_failure ? team_->refute(root_, n_, beta_) : team_->test(root_, n_, beta_);
      });
      t.stopped = !r;
      if (r) {
        t.at_least = *r >= beta - kd_;
        t.bound = kd_ + proven_bound(*r, beta - kd_, parity_);
      }
      const SolveResult counts = finish();
      t.nodes = counts.nodes;
      t.expanded = counts.expanded;
    }
    t.seconds = seconds();
    return t;
  }

 private:
  RootContext<B> context() {
    return {opt_, p_, root_, n_, kd_, parity_, tt_, ledger_, *team_, beta_};
  }

  // Each legal move's bounds before any test: v >= 2 gain - n (every stone left in the pits ends
  // in the opponent's kalah), v <= n.
  void open_moves() {
    for (int i = 0; i < root_.m(); ++i)
      if (root_.pit(i) != 0) ledger_.open_move(i, 2 * after_move(root_, i).gain - n_, n_);
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
    const int tt_skip =
        opt_.tt_skip_above_db >= 0 ? opt_.tt_skip_above_db
        : resident != nullptr && SolveTuning<typename B::Rules>::kTTSkipAboveResident
            ? kTTSkipAboveResident
            : 0;
    team_ =
        std::make_unique<SearchTeam<B>>(threads, tt_, opt_.oracle, memo_.get(), resident, tt_skip);
    if (const int plies = best_first_plies(opt_); plies > 0) {
      top_ = std::make_unique<ProofTree<B>>(*team_, plain_limits(plies));
      team_->set_test([this](const B& b, int nb, int beta) { return top_->test(b, nb, beta); });
    } else if (const int refuting = refutation_best_first_plies(opt_); refuting > 0) {
      top_ = std::make_unique<ProofTree<B>>(*team_, refutation_limits(refuting));
      team_->set_refutation_test(
          [this](const B& b, int nb, int beta) { return top_->test(b, nb, beta); });
    }
    const auto give_own_tops = [this](const ProofTreeLimits& limits) {
      team_->for_each([&](Search<B>& s) {
        own_tops_.push_back(std::make_unique<ProofTree<B>>(*team_, limits, &s));
      });
      team_->set_one_thread_test([this](Search<B>& s, const B& b, int nb, int beta) {
        return own_top(s).test(b, nb, beta);
      });
    };
    if (const int plies = one_thread_best_first_plies(opt_); plies > 0 && threads > 1) {
      give_own_tops(plain_limits(plies));
    } else if (const int refuting = refutation_alone_best_first_plies(opt_);
               refuting > 0 && SolveTuning<typename B::Rules>::kRefuteOtherMoves) {
      give_own_tops(refutation_limits(refuting));
    }
    if (move_source_) team_->for_each([this](Search<B>& s) { s.set_move_source(&*move_source_); });
    if (opt_.trace_expanded) {
      if (threads != 1) throw std::invalid_argument("solve: trace_expanded needs one thread");
      team_->main().set_expand_trace(&opt_.trace_expanded);
    }
    if (opt_.on_test && threads != 1)
      throw std::invalid_argument("solve: on_test needs one thread");
    std::function<void()> report;
    if (opt_.progress) report = [this] { report_progress(); };
    std::optional<Clock::time_point> deadline;
    if (opt_.max_seconds > 0)
      deadline = start_ + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(opt_.max_seconds));
    team_->set_limits(deadline, opt_.cancel, report);
  }

  // A top's limits with best_first_plies or one_thread_best_first_plies.
  ProofTreeLimits plain_limits(int plies) const {
    return ProofTreeLimits{.plies = plies, .budget = opt_.best_first_budget};
  }
  // The refutation top's limits (refutation_best_first_plies, refutation_alone_best_first_plies).
  ProofTreeLimits refutation_limits(int plies) const {
    return ProofTreeLimits{.plies = plies,
                           .budget = opt_.best_first_budget,
                           .root_expand_after = kRefutationRootExpandAfter,
                           .budget_share = SolveTuning<typename B::Rules>::kRefutationBudgetShare};
  }

  // The best-first top of search s's own tests.
  ProofTree<B>& own_top(const Search<B>& s) {
    return **std::find_if(own_tops_.begin(), own_tops_.end(),
                          [&s](const auto& top) { return top->alone() == &s; });
  }

  // The status line: every thread's nodes, the bounds, the test and where this thread's search
  // is (line_text()).
  void report_progress() {
    const double s = seconds();
    const std::uint64_t nodes = team_->polled_nodes();
    const auto [phase, lo, hi] = ledger_.progress();  // helpers record root tests too
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

  // The result with every thread's counts.
  SolveResult finish() {
    if (team_) team_->count_into(res_);
    const auto count_top = [this](const ProofTree<B>& top) {
      res_.top_nodes = std::max<std::uint64_t>(res_.top_nodes, top.peak_nodes());
      res_.top_bytes = std::max<std::uint64_t>(res_.top_bytes, top.peak_bytes());
      res_.top_tree += top.counts();
    };
    if (top_) count_top(*top_);
    for (const auto& top : own_tops_) count_top(*top);
    ledger_.fill(res_);
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
  const int n_, kd_, parity_;  // the root's stones in pits, kalah difference, parity of n
  RootLedger ledger_;
  std::atomic<int> beta_ = 0;          // the MTD(f) test under way: future >= beta_
  std::unique_ptr<SolveTT> own_tt_;    // null when opt.tt is given
  std::optional<TTView> move_source_;  // opt.move_source, salted as its solve's `tt` was
  TTView tt_;
  std::unique_ptr<ExactMemo<B>> memo_;
  std::unique_ptr<SearchTeam<B>> team_;  // from start_searches()
  // The best-first top, with best_first_plies or refutation_best_first_plies.
  std::unique_ptr<ProofTree<B>> top_;
  // Each search's own top (one_thread_best_first_plies, refutation_alone_best_first_plies).
  std::vector<std::unique_ptr<ProofTree<B>>> own_tops_;
  SolveResult res_;
};

// Solves p on board type B; solve() picks B.
template <class B>
SolveResult solve_on(const Position& p, const SolveOptions& opt) {
  return RootSolver<B>(p, opt).run();
}

}  // namespace kalah::solve_detail
