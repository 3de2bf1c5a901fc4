// verify_table: checksum pass per level, then the Bellman check of entries through the engine.
#include "verify.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "index.hpp"
#include "level_kernel.hpp"
#include "move.hpp"
#include "probe.hpp"

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
    best = std::max(best, gain + (again ? child : -child));
  }
  return best;
}

}  // namespace

VerifyReport verify_table(const Store& store, TableId t, const VerifyOptions& o) {
  VerifyReport rep;
  rep.table = t;
  rep.complete_through = store.complete_through(t);
  const int top = rep.complete_through;
  std::uint64_t all = 0;
  for (int n = 0; n <= top; ++n) all += level_entries(t.m, n);

  // 1. Blocks and level checksums, on the threads of the entry check.
  std::atomic<std::uint64_t> scanned{0};
  std::mutex progress_mu;
  int first_bad = top + 1;
  for (int n = 0; n <= top; ++n) {
    LevelCheck lc;
    lc.n = n;
    lc.entries = level_entries(t.m, n);
    try {
      store.scan_level_parallel(t, n, unsigned(std::max(o.threads, 0)),
                                [&](std::uint64_t, std::span<const std::int8_t> v) {
                                  const std::uint64_t done = scanned += v.size();
                                  if (!o.progress) return;
                                  if (std::unique_lock lock(progress_mu, std::try_to_lock);
                                      lock.owns_lock())
                                    o.progress("checksums", done, all);
                                });
      if (o.progress) o.progress("checksums", scanned, all);
      lc.checksum_ok = true;
    } catch (const DbError& e) {
      lc.error = e.what();
      first_bad = std::min(first_bad, n);
    }
    rep.levels.push_back(lc);
  }
  // Values can only be checked below the first damaged level.
  const int check_top = first_bad - 1;
  const LevelIndex index(t.m, std::max(check_top, 0));
  std::mutex mu;
  auto record = [&](const Position& p, int stored, int expected) {
    std::lock_guard lock(mu);
    if (rep.first_mismatches.size() < 10)
      rep.first_mismatches.push_back(to_string(p) + " stored " + std::to_string(stored) +
                                     " expected " + std::to_string(expected));
  };

  with_rules(t.rules, [&](auto rules) {
    using R = decltype(rules);
    if (o.sample == 0) {
      std::vector<std::vector<std::int8_t>> levels(std::max(check_top + 1, 0));
      for (int n = 0; n <= check_top; ++n) {
        levels[n].resize(index.size(n));
        store.read_level(t, n, levels[n]);
      }
      auto table_future = [&](const Position& c, int cn) {
        return int(levels[cn][index.rank(c, cn)]);
      };
      std::atomic<std::uint64_t> done{0};
      tbb::task_arena arena(o.threads > 0 ? o.threads : tbb::task_arena::automatic);
      for (int n = 0; n <= check_top; ++n) {
        std::atomic<std::uint64_t> bad{0};
        arena.execute([&] {
          tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, index.size(n), 1 << 14),
                            [&](const auto& range) {
                              Stones x[2 * kMaxPits];
                              index.unrank(range.begin(), n, x);
                              std::uint64_t local_bad = 0;
                              for (std::uint64_t r = range.begin(); r < range.end(); ++r) {
                                if (r != range.begin()) index.next(x);
                                const Position p = position_of_cells(t.m, x);
                                const int expected = bellman_value<R>(p, n, table_future);
                                if (expected != levels[n][r]) {
                                  ++local_bad;
                                  record(p, levels[n][r], expected);
                                }
                              }
                              bad += local_bad;
                              done += range.size();
                            });
        });
        rep.levels[n].checked = index.size(n);
        rep.levels[n].mismatches = bad;
        if (o.progress) o.progress("values", done, all);
      }
    } else if (check_top >= 0) {
      const TableLoad load =
          resolve_table_load(o.sample_memory_bytes > 0 ? TableLoad::kAuto : TableLoad::kCache,
                             store, t, check_top, o.sample_memory_bytes, kReachesEverywhere)
              .load;
      Probe probe(store, t, 256u << 20, load, unsigned(std::max(o.threads, 0)), check_top);
      auto probe_future = [&](const Position& c, int) { return *probe.future(c); };
      std::uint64_t checkable = 0;
      for (int n = 0; n <= check_top; ++n) checkable += index.size(n);
      // The ranks drawn do not depend on the threads: one generator draws them all, level by
      // level, entries per level in proportion to its size, at least one.
      std::mt19937_64 rng(o.seed);
      std::vector<std::pair<int, std::uint64_t>> picks;  // (level, rank)
      for (int n = 0; n <= check_top; ++n) {
        const std::uint64_t size = index.size(n);
        const std::uint64_t k = std::min<std::uint64_t>(
            size, std::max<std::uint64_t>(1, (unsigned __int128)o.sample * size /
                                                 std::max<std::uint64_t>(checkable, 1)));
        for (std::uint64_t i = 0; i < k; ++i) picks.emplace_back(n, k == size ? i : rng() % size);
        rep.levels[n].checked = k;
      }
      std::vector<std::atomic<std::uint64_t>> bad(check_top + 1);
      std::atomic<std::uint64_t> done{0};
      tbb::task_arena arena(o.threads > 0 ? o.threads : tbb::task_arena::automatic);
      arena.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, picks.size(), 1024),
                          [&](const auto& range) {
                            Stones x[2 * kMaxPits];
                            for (std::size_t i = range.begin(); i < range.end(); ++i) {
                              const auto [n, r] = picks[i];
                              index.unrank(r, n, x);
                              const Position p = position_of_cells(t.m, x);
                              const int stored = *probe.future(p);
                              const int expected = bellman_value<R>(p, n, probe_future);
                              if (stored != expected) {
                                ++bad[n];
                                record(p, stored, expected);
                              }
                            }
                            const std::uint64_t now = done += range.size();
                            if (o.progress) {
                              std::lock_guard lock(mu);
                              o.progress("sampled values", now, picks.size());
                            }
                          });
      });
      for (int n = 0; n <= check_top; ++n) rep.levels[n].mismatches = bad[n];
    }
  });
  for (const auto& l : rep.levels) {
    rep.checked += l.checked;
    rep.mismatches += l.mismatches;
  }
  return rep;
}

}  // namespace kalah
