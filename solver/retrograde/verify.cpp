// verify_table: checksum pass per level, then the Bellman check of entries through the engine.
#include "solver/retrograde/verify.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "db/index.hpp"
#include "db/probe.hpp"
#include "engine/move.hpp"
#include "solver/retrograde/arena_threads.hpp"

namespace kalah {

bool VerifyReport::ok() const {
  if (mismatches) return false;
  for (const auto& l : levels)
    if (!l.checksum_ok) return false;
  return true;
}

namespace {

// Best over p's moves of gain +- future(successor); future(c, n) answers the successor's value.
template <class R, class Lookup>
int bellman_value(const Position& p, int n, Lookup&& future) {
  if (is_over<R>(p)) return p.own_pit_stones() - p.opp_pit_stones();
  int best = -1000;
  for (int i = 0; i < p.m; ++i) {
    if (p.own_pit(i) == 0) continue;
    Position c = p;
    const bool again = play_move<R>(c, i);
    const int gain = again ? c.own_kalah() - p.own_kalah() : c.opp_kalah() - p.own_kalah();
    const int child = future(c, n - gain);
    best = std::max(best, future_after_move(gain, again, child));
  }
  return best;
}

// One verification of table t: the report filled step by step.
class TableVerifier {
 public:
  TableVerifier(const Store& store, TableId t, const VerifyOptions& o)
      : store_(store), t_(t), o_(o), arena_(arena_threads(o.threads)) {
    rep_.table = t;
    rep_.complete_through = store.complete_through(t);
    for (int n = 0; n <= rep_.complete_through; ++n) all_ += level_entries(t.m, n);
  }

  // 1. Blocks and level checksums, on the threads of the entry check. Returns the last level
  // below the first damaged one (values can only be checked there).
  int check_checksums() {
    const int top = rep_.complete_through;
    std::atomic<std::uint64_t> scanned{0};
    std::mutex progress_mu;
    int first_bad = top + 1;
    for (int n = 0; n <= top; ++n) {
      LevelCheck lc;
      lc.n = n;
      lc.entries = level_entries(t_.m, n);
      try {
        if (const auto meta = store_.level_meta(t_, n)) {
          lc.format_version = meta->format_version;
          lc.level_checksum = meta->checksum;
        }
        store_.scan_level_parallel(
            t_, n, threads(), [&](std::uint64_t, std::span<const std::int8_t> v) {
              const std::uint64_t done = scanned += v.size();
              if (!o_.progress) return;
              if (std::unique_lock lock(progress_mu, std::try_to_lock); lock.owns_lock())
                o_.progress("checksums", done, all_);
            });
        if (o_.progress) o_.progress("checksums", scanned, all_);
        lc.checksum_ok = true;
      } catch (const DbError& e) {
        lc.error = e.what();
        first_bad = std::min(first_bad, n);
      }
      rep_.levels.push_back(lc);
    }
    return first_bad - 1;
  }

  // 2a. Every entry of levels 0..top against its successors, all levels read into memory.
  template <class R>
  void check_every_entry(int top) {
    const LevelIndex index(t_.m, std::max(top, 0));
    std::vector<std::vector<std::int8_t>> levels(std::max(top + 1, 0));
    for (int n = 0; n <= top; ++n) {
      levels[n].resize(index.size(n));
      store_.read_level(t_, n, levels[n]);
    }
    auto table_future = [&](const Position& c, int cn) {
      return int(levels[cn][index.rank(c, cn)]);
    };
    std::atomic<std::uint64_t> done{0};
    for (int n = 0; n <= top; ++n) {
      std::atomic<std::uint64_t> bad{0};
      const auto check_range = [&](const tbb::blocked_range<std::uint64_t>& range) {
        Stones x[2 * kMaxPits];
        index.unrank(range.begin(), n, x);
        for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
          if (r != range.begin()) index.next(x);
          const Position p = position_of_cells(t_.m, x);
          if (!check<R>(p, n, levels[n][r], table_future)) ++bad;
        }
        done += range.size();
      };
      arena_.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, index.size(n), 1 << 14),
                          check_range);
      });
      rep_.levels[n].checked = index.size(n);
      rep_.levels[n].mismatches = bad;
      if (o_.progress) o_.progress("values", done, all_);
    }
  }

  // 2b. o.sample random entries of levels 0..top against their successors, read through a probe.
  template <class R>
  void check_sample(int top) {
    const LevelIndex index(t_.m, top);
    const TableLoad load =
        resolve_table_load(o_.sample_memory_bytes > 0 ? TableLoad::kAuto : TableLoad::kCache,
                           store_, t_, top, o_.sample_memory_bytes, kReachesEverywhere)
            .load;
    Probe probe(store_, t_, 256u << 20, load, threads(), top);
    auto probe_future = [&](const Position& c, int) { return *probe.future(c); };
    const std::vector<std::pair<int, std::uint64_t>> picks = sample_ranks(index, top);
    std::vector<std::atomic<std::uint64_t>> bad(top + 1);
    std::atomic<std::uint64_t> done{0};
    const auto check_range = [&](const tbb::blocked_range<std::size_t>& range) {
      Stones x[2 * kMaxPits];
      for (std::size_t i = range.begin(); i < range.end(); ++i) {
        const auto [n, r] = picks[i];
        index.unrank(r, n, x);
        const Position p = position_of_cells(t_.m, x);
        if (!check<R>(p, n, *probe.future(p), probe_future)) ++bad[n];
      }
      const std::uint64_t now = done += range.size();
      if (o_.progress) {
        std::lock_guard lock(mu_);
        o_.progress("sampled values", now, picks.size());
      }
    };
    arena_.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, picks.size(), 1024), check_range);
    });
    for (int n = 0; n <= top; ++n) rep_.levels[n].mismatches = bad[n];
  }

  VerifyReport report() {
    for (const auto& l : rep_.levels) {
      rep_.checked += l.checked;
      rep_.mismatches += l.mismatches;
    }
    return std::move(rep_);
  }

 private:
  unsigned threads() const { return unsigned(std::max(o_.threads, 0)); }

  // Whether the stored value of p (n stones in pits) is its best move's; else it is recorded.
  template <class R, class Lookup>
  bool check(const Position& p, int n, int stored, Lookup&& future) {
    const int expected = bellman_value<R>(p, n, future);
    if (stored == expected) return true;
    std::lock_guard lock(mu_);
    if (rep_.first_mismatches.size() < 10)
      rep_.first_mismatches.push_back(to_string(p) + " stored " + std::to_string(stored) +
                                      " expected " + std::to_string(expected));
    return false;
  }

  // The (level, rank) pairs of the sample: one generator draws them all, level by level, entries
  // per level in proportion to its size, at least one; they do not depend on the threads. Sets
  // each level's `checked`.
  std::vector<std::pair<int, std::uint64_t>> sample_ranks(const LevelIndex& index, int top) {
    std::uint64_t checkable = 0;
    for (int n = 0; n <= top; ++n) checkable += index.size(n);
    std::mt19937_64 rng(o_.seed);
    std::vector<std::pair<int, std::uint64_t>> picks;
    for (int n = 0; n <= top; ++n) {
      const std::uint64_t size = index.size(n);
      const std::uint64_t k = std::min<std::uint64_t>(
          size, std::max<std::uint64_t>(1, (unsigned __int128)o_.sample * size /
                                               std::max<std::uint64_t>(checkable, 1)));
      for (std::uint64_t i = 0; i < k; ++i) picks.emplace_back(n, k == size ? i : rng() % size);
      rep_.levels[n].checked = k;
    }
    return picks;
  }

  const Store& store_;
  TableId t_;
  const VerifyOptions& o_;
  tbb::task_arena arena_;
  VerifyReport rep_;
  std::uint64_t all_ = 0;  // entries of the complete levels
  std::mutex mu_;          // guards rep_.first_mismatches and the sample's progress
};

}  // namespace

VerifyReport verify_table(const Store& store, TableId t, const VerifyOptions& o) {
  TableVerifier v(store, t, o);
  const int check_top = v.check_checksums();
  with_rules(t.rules, [&](auto rules) {
    using R = decltype(rules);
    if (o.sample == 0)
      v.template check_every_entry<R>(check_top);
    else if (check_top >= 0)
      v.template check_sample<R>(check_top);
  });
  return v.report();
}

}  // namespace kalah
