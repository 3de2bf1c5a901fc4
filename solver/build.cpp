// build_database: resume from the stored levels, then solve and commit level by level.
#include "build.hpp"

#include <chrono>
#include <cmath>
#include <future>
#include <string>

#include "physical_memory.hpp"

namespace kalah {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
  return buf;
}

}  // namespace

std::uint64_t build_memory_bytes(int m, int max_stones) {
  // Levels 0..N of c = 2m cells hold C(N + c, c) arrangements in all.
  const int c = 2 * m;
  long double x = 1;
  for (int i = 1; i <= c; ++i) x = x * (max_stones + i) / i;
  if (x >= 1.8e19L) return UINT64_MAX;
  return std::uint64_t(std::llround(double(x)));
}

BuildReport build_database(Store& store, const BuildOptions& o, const BuildEvents& events) {
  const auto start = std::chrono::steady_clock::now();
  const TableId t = o.table;
  if (t.m < 1 || t.m > kMaxPits)
    throw InputError("--pits must be 1.." + std::to_string(kMaxPits) + ", got " +
                     std::to_string(t.m));
  if (o.max_stones < 0 || o.max_stones > kMaxTableStones)
    throw InputError("--max-stones must be 0.." + std::to_string(kMaxTableStones) + ", got " +
                     std::to_string(o.max_stones));
  const std::uint64_t need = build_memory_bytes(t.m, o.max_stones);
  const std::uint64_t have = physical_memory_bytes();
  if (need > have - have / 8)
    throw InputError("levels 0.." + std::to_string(o.max_stones) + " of " + to_string(t) +
                     " need " + (need == UINT64_MAX ? std::string("more than 16 EiB") : gib(need)) +
                     " of memory; this machine has " + gib(have));

  BuildReport report;
  const int stored = store.complete_through(t);
  report.complete_through = std::min(stored, o.max_stones);
  if (stored >= o.max_stones) {
    report.seconds = seconds_since(start);
    return report;
  }
  const LevelIndex index(t.m, o.max_stones);
  LevelTables levels(o.max_stones + 1);
  for (int n = 0; n <= stored; ++n) {
    if (events.loading) events.loading(n, stored);
    levels[n].resize(index.size(n));
    store.read_level(t, n, levels[n]);
  }
  report.first_built = stored + 1;
  // Level n is compressed and committed in the background while level n+1 is solved (it only
  // reads level n). Commits stay in level order: the next write starts after the previous one.
  std::future<double> writing;  // seconds the write took
  int writing_level = -1;
  double writing_solve_s = 0;
  auto finish_write = [&] {
    if (!writing.valid()) return;
    const double write_s = writing.get();  // rethrows a storage failure
    const int n = writing_level;
    if (events.level_done) events.level_done(n, index.size(n), writing_solve_s, write_s);
    report.complete_through = n;
    report.entries_built += index.size(n);
    if (events.after_commit) events.after_commit(n);
  };
  try {
    for (int n = stored + 1; n <= o.max_stones; ++n) {
      const auto level_start = std::chrono::steady_clock::now();
      solve_level(t.rules, index, levels, n, o.threads, events.solving);
      const double solve_s = seconds_since(level_start);
      finish_write();
      writing_level = n;
      writing_solve_s = solve_s;
      writing = std::async(std::launch::async, [&store, t, n, &levels] {
        const auto write_start = std::chrono::steady_clock::now();
        store.write_level(t, n, levels[n]);
        return seconds_since(write_start);
      });
    }
    finish_write();
  } catch (...) {
    if (writing.valid()) writing.wait();  // never leave a write running on freed tables
    throw;
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace kalah
