// The solver's null-window-capable alpha-beta over future margins, with TT, ETC and oracle probes.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "oracle.hpp"
#include "solve_board.hpp"
#include "solve_tt.hpp"

namespace kalah::solve_detail {

// Searches the future margin f of boards of type B (future: margin minus kalah difference; it lies
// in [-n, n] for n stones in pits and has the parity of n). search(b, n, alpha, beta) is
// fail-soft: a result v <= alpha proves f <= v, v >= beta proves f >= v, otherwise f == v.
// After stop() or the deadline, results are meaningless and aborted() is true.
template <class B>
class Search {
 public:
  using R = typename B::Rules;
  using Clock = std::chrono::steady_clock;

  // Pit-stone counts below these skip the TT / enhanced transposition cutoffs (cheap subtrees).
  static constexpr int kTableMinStones = 3;
  static constexpr int kEtcMinStones = 8;

  Search(SolveTable& tt, ExactOracle* oracle) : tt_(tt), oracle_(oracle) {
    if (oracle_ != nullptr) oracle_max_ = oracle_->max_stones();
  }

  // Stops when the clock passes `deadline` (checked every few thousand nodes); calls `report`
  // about every `every` seconds when set.
  void set_limits(std::optional<Clock::time_point> deadline, std::function<void()> report,
                  double every = 1.0) {
    deadline_ = deadline;
    report_ = std::move(report);
    report_every_ =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(every));
    last_report_ = Clock::now();
  }

  bool aborted() const { return aborted_; }
  std::uint64_t nodes() const { return nodes_; }
  std::uint64_t oracle_hits() const { return oracle_hits_; }
  SolveTable& table() { return tt_; }

  // True when the game is over at b (RULES.md end rules); then *value is its future margin.
  static bool game_over(const B& b, int n, int* value) {
    const int own = b.own_stones();
    if constexpr (R::kRelayCapture) {
      if (own != 0) return false;
    } else {
      if (own != 0 && own != n) return false;
    }
    *value = 2 * own - n;  // each side keeps its own pit stones
    return true;
  }

  int search(const B& b, int n, int alpha, int beta) {
    if ((++nodes_ & kPollMask) == 0) poll();
    if (aborted_) return 0;
    int over;
    if (game_over(b, n, &over)) return over;
    if (beta <= -n) return -n;
    if (alpha >= n) return n;
    if (n <= oracle_max_) {
      if (const std::optional<int> f = oracle_->future(b.position())) {
        ++oracle_hits_;
        return *f;
      }
    }

    int lo = -n, hi = n, tt_move = -1;
    std::uint64_t key = 0;
    if (n >= kTableMinStones) {
      key = b.key();
      if (const SolveEntry* e = tt_.probe(key)) {
        lo = std::max(lo, int(e->lower));
        hi = std::min(hi, int(e->upper));
        tt_move = e->move;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
      }
    }

    // Children, with their gain (stones into the mover's kalah) and whether the mover goes on.
    struct Child {
      B b;
      int gain;
      int order;
      bool again;
      std::int8_t pit;
    };
    Child kids[kMaxPits];
    const int m = b.m();
    int count = 0;
    for (int i = 0; i < m; ++i) {
      if (b.pit(i) == 0) continue;
      Child& c = kids[count++];
      c.b = b;
      c.pit = std::int8_t(i);
      c.gain = c.b.play(i, c.again);
      c.order = i == tt_move ? 1 << 20 : (c.again ? 1 << 10 : 0) + c.gain * 16 + i;
    }

    // Enhanced transposition cutoff: a child's stored bound may already refute this window.
    if (n >= kEtcMinStones) {
      for (int k = 0; k < count; ++k) {
        const Child& c = kids[k];
        if (n - c.gain < kTableMinStones) continue;
        const SolveEntry* e = tt_.probe(c.b.key());
        if (e == nullptr) continue;
        const int v = c.again ? c.gain + e->lower : c.gain - e->upper;
        if (v >= beta) {
          tt_.store(key, v, hi, c.pit, 0);
          return v;
        }
      }
    }

    // Best first: insertion sort by order, descending.
    int idx[kMaxPits];
    for (int k = 0; k < count; ++k) {
      int j = k;
      while (j > 0 && kids[idx[j - 1]].order < kids[k].order) {
        idx[j] = idx[j - 1];
        --j;
      }
      idx[j] = k;
    }

    const std::uint64_t nodes_before = nodes_;
    const int alpha0 = alpha;
    int best = -n - 1, best_move = -1;
    for (int k = 0; k < count; ++k) {
      const Child& c = kids[idx[k]];
      const int nc = n - c.gain;
      const int v = c.again ? c.gain + search(c.b, nc, alpha - c.gain, beta - c.gain)
                            : c.gain - search(c.b, nc, c.gain - beta, c.gain - alpha);
      if (aborted_) return 0;
      if (v > best) {
        best = v;
        best_move = c.pit;
        if (v > alpha) {
          alpha = v;
          if (v >= beta) break;
        }
      }
    }
    if (n >= kTableMinStones) {
      const int work = std::bit_width(nodes_ - nodes_before);
      if (best >= beta) {
        tt_.store(key, best, hi, best_move, work);
      } else if (best <= alpha0) {
        tt_.store(key, lo, best, best_move, work);
      } else {
        tt_.store(key, best, best, best_move, work);
      }
    }
    return best;
  }

 private:
  static constexpr std::uint64_t kPollMask = (1u << 14) - 1;

  void poll() {
    const Clock::time_point now = Clock::now();
    if (deadline_ && now >= *deadline_) aborted_ = true;
    if (report_ && now - last_report_ >= report_every_) {
      last_report_ = now;
      report_();
    }
  }

  SolveTable& tt_;
  ExactOracle* oracle_;
  int oracle_max_ = -1;
  std::uint64_t nodes_ = 0;
  std::uint64_t oracle_hits_ = 0;
  bool aborted_ = false;
  std::optional<Clock::time_point> deadline_;
  std::function<void()> report_;
  Clock::duration report_every_{};
  Clock::time_point last_report_{};
};

}  // namespace kalah::solve_detail
