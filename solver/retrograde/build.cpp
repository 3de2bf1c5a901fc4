// build_database: resume from the stored levels, then solve and commit level by level.
#include "solver/retrograde/build.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <string>

#include "db/arrangements.hpp"
#include "engine/physical_memory.hpp"
#include "engine/stopwatch.hpp"

namespace kalah {

namespace {

// A size for messages: MiB below a GiB, else GiB.
std::string gib(std::uint64_t bytes) {
  char buf[32];
  if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / double(1ull << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
  }
  return buf;
}

// arrangement_count, UINT64_MAX for "too many".
std::uint64_t count_or_max(int c, int n) {
  return arrangement_count(c, n).value_or(UINT64_MAX);
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

std::uint64_t table_entries(int m, int max_stones) {
  return count_or_max(2 * m + 1, max_stones);  // levels 0..N of 2m cells: N stones in 2m + 1
}

std::uint64_t build_memory_bytes(int m, int max_stones, bool packed) {
  std::uint64_t bytes = 0;
  for (int n = 0; n < max_stones; ++n) {
    const std::uint64_t size = count_or_max(2 * m, n);
    const bool in_words = packed && ResidentLevel::packs(n) && size != UINT64_MAX;
    bytes = saturating_add(
        bytes,
        in_words ? (size + ResidentLevel::kPerWord - 1) / ResidentLevel::kPerWord * 8 : size);
  }
  bytes = saturating_add(bytes, count_or_max(2 * m, max_stones));
  if (max_stones > 0) bytes = saturating_add(bytes, count_or_max(2 * m, max_stones - 1));
  return bytes;
}

bool build_packs_levels(TableId t, int max_stones, std::uint64_t limit,
                        const std::string& limit_is) {
  if (build_memory_bytes(t.m, max_stones, false) <= limit) return false;
  const std::uint64_t need = build_memory_bytes(t.m, max_stones, true);
  if (need <= limit) return true;
  int fits = -1;
  while (fits < max_stones && build_memory_bytes(t.m, fits + 1, true) <= limit) ++fits;
  throw InputError("levels 0.." + std::to_string(max_stones) + " of " + to_string(t) + " need " +
                   (need == UINT64_MAX ? std::string("more than 16 EiB") : gib(need)) +
                   " of memory with the levels packed; the limit is " + gib(limit) + " (" +
                   limit_is + ")" +
                   (fits >= 0 ? "; the largest table that fits is levels 0.." + std::to_string(fits)
                              : "; not even level 0 fits"));
}

bool build_packs_levels(const BuildOptions& o) {
  const std::uint64_t have = physical_memory_bytes();
  return o.memory_limit > 0
             ? build_packs_levels(o.table, o.max_stones, o.memory_limit, "--memory-limit")
             : build_packs_levels(
                   o.table, o.max_stones, have - have / 8,
                   "7/8 of this machine's " + gib(have) + "; --memory-limit sets it");
}

int max_table_stones(int m) {
  int n = 0;
  while (n < kMaxTableStones && arrangement_count(2 * m, n + 1)) ++n;
  return n;
}

void check_build_options(const BuildOptions& o) {
  if (o.table.m < 1 || o.table.m > kMaxPits)
    throw InputError("--pits must be 1.." + std::to_string(kMaxPits) + ", got " +
                     std::to_string(o.table.m));
  const int most = max_table_stones(o.table.m);
  if (o.max_stones < 0 || o.max_stones > most)
    throw InputError("--max-stones must be 0.." + std::to_string(most) +
                     (most < kMaxTableStones
                          ? " for --pits " + std::to_string(o.table.m) + " (level " +
                                std::to_string(most + 1) + " has too many positions to index)"
                          : std::string()) +
                     ", got " + std::to_string(o.max_stones));
}

BuildReport build_database(Store& store, const BuildOptions& o, const BuildEvents& events) {
  const auto start = std::chrono::steady_clock::now();
  const TableId t = o.table;
  check_build_options(o);
  const bool packing = build_packs_levels(o);

  BuildReport report;
  report.packed = packing;
  const int stored = store.complete_through(t);
  report.complete_through = std::min(stored, o.max_stones);
  if (stored >= o.max_stones) {
    report.seconds = seconds_since(start);
    return report;
  }
  const LevelIndex index(t.m, o.max_stones);
  LevelTables levels(o.max_stones + 1, packing);
  for (int n = 0; n <= stored; ++n) {
    if (events.loading) events.loading(n, stored);
    store.read_level(t, n, levels.open(n, index.size(n), 0, o.threads), unsigned(o.threads));
    levels.pack(n, o.threads);
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
      generate_level(t.rules, index, levels, n, o.threads, events.solving);
      const double solve_s = seconds_since(level_start);
      finish_write();
      writing_level = n;
      writing_solve_s = solve_s;
      writing = std::async(std::launch::async, [&store, t, n, &levels] {
        const auto write_start = std::chrono::steady_clock::now();
        store.write_level(t, n, levels.level(n));
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
