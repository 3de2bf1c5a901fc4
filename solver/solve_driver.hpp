// The solver's root: MTD(f) on the future margin, then best-move verification and the PV.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "search.hpp"
#include "solve.hpp"
#include "solve_search.hpp"

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

// Smallest value >= v / largest value <= v with the parity of `parity`.
inline int round_up(int v, int parity) {
  return ((v - parity) & 1) ? v + 1 : v;
}
inline int round_down(int v, int parity) {
  return ((v - parity) & 1) ? v - 1 : v;
}

// Solves p on board type B (whose rules are B::Rules); solve() picks B. Margins at the root are
// future margins plus the root's kalah difference.
template <class B>
SolveResult solve_on(const Position& p, const SolveOptions& opt) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  SolveResult res;
  const B root(p);
  const int n = p.pit_stones();
  const int kd = p.kalah_difference();
  // Helper searches (opt.threads - 1 of them), declared before finish() sums their nodes.
  std::vector<std::unique_ptr<Search<B>>> helpers;
  const auto finish = [&](auto& search) {
    res.nodes = search.nodes();
    res.oracle_hits = search.oracle_hits();
    res.expanded = search.expanded();
    for (const auto& h : helpers) {
      res.nodes += h->nodes();
      res.oracle_hits += h->oracle_hits();
      res.expanded += h->expanded();
    }
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  };

  int over;
  if (Search<B>::game_over(root, n, &over)) {
    res.complete = true;
    res.margin = res.lower = res.upper = kd + over;
    res.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return res;
  }

  const int threads = std::max(1, opt.threads);
  SolveTable tt(opt.tt_bytes);
  std::unique_ptr<ExactMemo<B>> memo;
  const int memo_stones = opt.memo_stones >= 0 ? std::min(opt.memo_stones, ExactMemo<B>::kMaxValue)
                                               : auto_memo_stones<B>(p.m, n, opt.tt_bytes);
  if (memo_stones > 0) {
    memo = std::make_unique<ExactMemo<B>>(p.m, memo_stones);
    memo->set_oracle(opt.oracle);
  }
  const auto* resident = dynamic_cast<const Probe*>(opt.oracle);
  if (resident != nullptr && (!resident->resident() || resident->table().m != p.m ||
                              resident->table().rules != rules_id<typename B::Rules>))
    resident = nullptr;  // the generic path answers (or declines) through future()
  const int untabled = opt.untabled_above_db >= 0 ? opt.untabled_above_db
                       : resident != nullptr && B::Rules::kUntabledAboveResident
                           ? kUntabledAboveResident
                           : 0;
  Search<B> search(tt, opt.oracle, memo.get(), untabled);
  if (resident != nullptr) search.set_resident(resident);
  std::atomic<bool> stop{false};
  std::vector<std::uint64_t> busy(threads > 1 ? Search<B>::kBusySlots : 0);
  if (threads > 1) search.set_parallel(&stop, busy.data());
  for (int t = 1; t < threads; ++t) {
    helpers.push_back(std::make_unique<Search<B>>(tt, opt.oracle, memo.get(), untabled));
    if (resident != nullptr) helpers.back()->set_resident(resident);
    helpers.back()->set_parallel(&stop, busy.data());
  }
  // Runs work(s) with every thread's search s, this thread's included, and waits for them all.
  const auto on_all_threads = [&](const auto& work) {
    std::vector<std::thread> pool;
    for (const auto& h : helpers) pool.emplace_back([&work, &h] { work(*h); });
    work(search);
    for (std::thread& th : pool) th.join();
  };
  // The null-window test "future of b >= beta" by search s alone; nullopt: the deadline passed
  // (or s was stopped) first.
  const auto test_alone = [](Search<B>& s, const B& b, int nb, int beta) -> std::optional<int> {
    const int r = s.search(b, nb, beta - 1, beta);
    return s.aborted() ? std::nullopt : std::optional<int>(r);
  };
  // The same test on every thread; the first to finish answers (all answers are proofs, so any
  // will do).
  const auto test = [&](const B& b, int nb, int beta) -> std::optional<int> {
    if (helpers.empty()) return test_alone(search, b, nb, beta);
    stop = false;
    std::atomic<bool> answered{false};
    int answer = 0;
    on_all_threads([&](Search<B>& s) {
      s.restart();
      const int r = s.search(b, nb, beta - 1, beta);
      if (!s.aborted() && !answered.exchange(true)) answer = r;
      stop = true;  // answered, or the deadline: the other threads stop too
    });
    if (!answered) return std::nullopt;
    return answer;
  };
  int lo = -n, hi = n, beta = 0;  // proven lo <= future <= hi; testing future >= beta
  std::string phase;              // empty: root MTD(f) tests; else what the solve is doing
  std::function<void()> report;
  if (opt.progress) {
    report = [&] {
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      char line[160];
      std::snprintf(line, sizeof line, "solve: %.0f s, %.3g nodes (%.3g/s), margin in [%d, %d], ",
                    s, double(search.nodes()), search.nodes() / std::max(s, 1e-9), kd + lo,
                    kd + hi);
      opt.progress(line +
                   (phase.empty() ? "MTD(f) test margin >= " + std::to_string(kd + beta) : phase));
    };
  }
  std::optional<Clock::time_point> deadline;
  if (opt.max_seconds > 0)
    deadline = start + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(opt.max_seconds));
  search.set_limits(deadline, report);
  for (const auto& h : helpers) h->set_limits(deadline, nullptr);

  // MTD(f): null-window tests f >= beta, each moving one bound, until the bounds meet. Both bounds
  // keep the parity of n (so does every future margin), so each test rules out two values. When
  // the moves are wanted, the root tests stop at the first that succeeds: the moves' own tests
  // below finish the proof.
  const int parity = n & 1;
  int guess = 0;
  const int covered = opt.oracle != nullptr ? std::max(opt.oracle->max_stones(), 0) : 0;
  if (opt.guess_depth > 0 && n - covered >= kGuessMinStones) {
    SearchOptions eo;
    eo.oracle = opt.oracle;
    eo.randomize = false;
    eo.tt_bytes = std::size_t(32) << 20;
    SearchLimits limits;
    limits.depth = opt.guess_depth;
    if (opt.max_seconds > 0) limits.seconds = opt.max_seconds / 4;
    guess = Searcher(rules_id<typename B::Rules>, eo).search(p, limits).value - kd;
  }
  bool stopped = false;
  while (lo < hi) {
    beta = round_up(std::clamp(guess, lo + 1, hi), parity);
    const std::optional<int> tested = test(root, n, beta);
    stopped = !tested;
    if (stopped) break;
    const int r = *tested;
    if (r >= beta) {
      lo = round_up(r, parity);
    } else {
      hi = round_down(r, parity);
    }
    guess = r;
    if (r >= beta && opt.find_moves) break;
  }
  res.lower = kd + lo;
  res.upper = kd + hi;
  if (stopped) return finish(search);
  if (!opt.find_moves) {
    res.complete = true;
    res.margin = kd + lo;
    return finish(search);
  }

  // Each move's future margin v (for the side to move at the root) is settled against the best
  // found so far: "v >= level?" with level = max(lo, top), and a move that reaches it climbs by
  // further tests until one fails. A move that fails is not best; the root's margin is the
  // highest v. Unlike a last root test "f >= f + 2" followed by a check of every move, no move but
  // the best is ever refuted twice.
  // move_test returns the fail-soft bound r on v (r >= level: v >= r; else v <= r), or nullopt at
  // the deadline. run(b, nb, beta) is a null-window test "future of b >= beta": test() on every
  // thread, or test_alone() on one.
  const auto move_test = [&](int i, int level, const auto& run) -> std::optional<int> {
    B c = root;
    bool again;
    const int gain = c.play(i, again);
    if (again) {
      const std::optional<int> s = run(c, n - gain, level - gain);
      return s ? std::optional<int>(gain + *s) : std::nullopt;
    }
    const std::optional<int> s = run(c, n - gain, gain - level + 1);
    return s ? std::optional<int>(gain - *s) : std::nullopt;
  };
  // Move i's exact v when v >= level, else -n - 1 (v < level); nullopt at the deadline. `show`
  // (on the reporting thread only) names each test in the progress line.
  const auto settle = [&](int i, int level, const auto& run,
                          const auto& show) -> std::optional<int> {
    int v = -n - 1;
    while (true) {
      show(level);
      const std::optional<int> r = move_test(i, level, run);
      if (!r) return std::nullopt;
      if (*r < level) return v;
      v = std::min(round_up(*r, parity), hi);
      if (v == hi) return v;  // no move does better
      level = v + 2;
    }
  };
  std::vector<int> order;
  if (n >= search.table_min_stones()) {
    if (SolveEntry e; tt.probe(root.key(), e) && e.move >= 0 && root.pit(e.move) > 0)
      order.push_back(e.move);
  }
  for (int i = 0; i < root.m(); ++i)
    if (root.pit(i) > 0 && (order.empty() || order[0] != i)) order.push_back(i);
  int top = -n - 1;  // the highest v proven so far, achieved by res.best_moves
  const auto record = [&](int i, int v) {
    if (v < std::max(lo, top)) return;  // not best
    if (v > top) {
      top = v;
      res.best_moves.clear();
    }
    res.best_moves.push_back(i + 1);
  };
  const auto move_phase = [&](std::size_t k) {
    return [&, k](int level) {
      phase = "move " + std::to_string(order[k] + 1) + " (" + std::to_string(k + 1) + " of " +
              std::to_string(order.size()) + "): test margin >= " + std::to_string(kd + level);
    };
  };
  const auto incomplete = [&] {
    res.lower = kd + std::max(lo, top);
    return finish(search);
  };
  // The stored best move first, on every thread: it usually sets `top`.
  std::size_t settled = 0;
  if (const std::optional<int> v = settle(order[0], lo, test, move_phase(0))) {
    record(order[0], *v);
    settled = 1;
  } else {
    return incomplete();
  }
  if (helpers.empty() || order.size() - settled < 2) {
    for (std::size_t k = settled; k < order.size(); ++k) {
      const std::optional<int> v = settle(order[k], std::max(lo, top), test, move_phase(k));
      if (!v) return incomplete();
      record(order[k], *v);
    }
  } else {
    // The other moves, one per thread at a time, each against the same level: most of them
    // only prove v < level, and those proofs share no root.
    const int level = std::max(lo, top);
    phase = "the other " + std::to_string(order.size() - settled) +
            " moves, one per thread: " + "test margin >= " + std::to_string(kd + level);
    std::vector<std::optional<int>> got(order.size());
    std::atomic<std::size_t> next{settled};
    std::atomic<bool> failed{false};
    stop = false;
    const auto work = [&](Search<B>& s) {
      s.restart();
      const auto alone = [&](const B& b, int nb, int beta) { return test_alone(s, b, nb, beta); };
      for (std::size_t k; (k = next++) < order.size();) {
        got[k] = settle(order[k], level, alone, [](int) {});
        if (!got[k]) {
          failed = true;
          stop = true;
          return;
        }
      }
    };
    on_all_threads(work);
    if (failed) return incomplete();
    for (std::size_t k = settled; k < order.size(); ++k) record(order[k], *got[k]);
  }
  if (top < lo) throw std::logic_error("solve: no move achieves the proven bound (TT collision?)");
  std::sort(res.best_moves.begin(), res.best_moves.end());
  lo = hi = top;
  res.lower = res.upper = kd + top;
  // The PV is searched by this thread alone.
  search.set_parallel(nullptr, nullptr);
  search.restart();
  const int f = top;

  // Does own pit i of b (future margin exactly `target`) achieve it? Sets the child and its exact
  // future margin when it does.
  const auto achieves = [&](const B& b, int nb, int i, int target, B& c, int& nc, int& fc) {
    c = b;
    bool again;
    const int gain = c.play(i, again);
    nc = nb - gain;
    if (again) {
      fc = target - gain;
      return search.search(c, nc, fc - 1, fc) >= fc;
    }
    fc = gain - target;
    return search.search(c, nc, fc, fc + 1) <= fc;
  };

  phase = "principal variation";
  B cur = root;
  int cn = n, cf = f, dummy;
  while (!Search<B>::game_over(cur, cn, &dummy)) {
    int first = -1;
    if (cn >= search.table_min_stones()) {
      if (SolveEntry e; tt.probe(cur.key(), e)) first = e.move;
    }
    bool found = false;
    for (int k = -1; k < cur.m() && !found; ++k) {
      const int i = k < 0 ? first : k;
      if (i < 0 || (k >= 0 && i == first) || cur.pit(i) == 0) continue;
      B c = cur;
      int nc, fc;
      const bool ok = achieves(cur, cn, i, cf, c, nc, fc);
      if (search.aborted()) return finish(search);
      if (ok) {
        res.pv.push_back(i + 1);
        cur = c;
        cn = nc;
        cf = fc;
        found = true;
      }
    }
    if (!found) throw std::logic_error("solve: no move achieves the proven value (TT collision?)");
  }
  if (cf != 2 * cur.own_stones() - cn)
    throw std::logic_error("solve: principal variation does not end at the proven value");

  res.complete = true;
  res.margin = kd + f;
  return finish(search);
}

}  // namespace kalah::solve_detail
