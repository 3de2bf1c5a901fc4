// The distributed build's driver: the stored levels handed out, then each new level solved, stored.
#include "solver/retrograde/mpi/distributed_build.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "db/storage_order.hpp"
#include "engine/physical_memory.hpp"
#include "engine/stopwatch.hpp"
#include "solver/mpi/mpi_world.hpp"
#include "solver/retrograde/arena_threads.hpp"
#include "solver/retrograde/level_kernel.hpp"
#include "solver/retrograde/mpi/exchange.hpp"
#include "solver/retrograde/mpi/fault_injection.hpp"
#include "solver/retrograde/mpi/memory_check.hpp"
#include "solver/retrograde/mpi/partition.hpp"
#include "solver/retrograde/mpi/slice_kernel.hpp"
#include "solver/retrograde/mpi/stored_blocks.hpp"

namespace kalah {

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t peak_memory_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return std::uint64_t(ru.ru_maxrss) * 1024;  // Linux: KiB
}

// Throws as build_database_distributed() does for options, processes or a missing store.
void check_distributed_options(const Store* store, const BuildOptions& o, World w) {
  check_build_options(o);
  if (w.size > kMaxProcesses)
    throw InputError("at most " + std::to_string(kMaxProcesses) + " processes, got " +
                     std::to_string(w.size));
  if (w.rank == 0 && store == nullptr)
    throw std::logic_error("build_database_distributed: process 0 needs the store");
}

// What process 0's store holds and how it stores, told to every process.
struct StoreState {
  int stored = -1;  // the last complete level
  std::uint32_t block_entries = 0;
  int zstd_level = 0;
};

StoreState broadcast_store_state(const Store* store, TableId t, World w) {
  std::int64_t shared[3] = {-1, 0, 0};
  if (w.rank == 0) {
    shared[0] = store->complete_through(t);
    shared[1] = store->options().block_entries;
    shared[2] = store->options().zstd_level;
  }
  broadcast_from_first(shared);
  return {int(shared[0]), std::uint32_t(shared[1]), int(shared[2])};
}

// The threads of a process: --threads, else its share of this machine's cores.
int process_threads(const BuildOptions& o, int local) {
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return o.threads > 0 ? o.threads : std::max(1, cores / local);
}

// One distributed build on this process, its share already checked: the slices of every level,
// this process's slices of the levels, the exchange. Every member function is collective.
class DistributedBuild {
 public:
  DistributedBuild(Store* store, const BuildOptions& o, const DistributedEvents& events, World w,
                   StoreState state, int local)
      : store_(store),
        t_(o.table),
        events_(events),
        w_(w),
        state_(state),
        arena_(arena_threads(process_threads(o, local))),
        index_(t_.m, o.max_stones),
        order_(t_.m, o.max_stones),
        levels_(o.max_stones + 1, /*packing=*/true),
        slices_(std::size_t(o.max_stones) + 1),
        exchange_(w) {
    for (int n = 0; n <= o.max_stones; ++n) slices_[n] = Slices(index_.size(n), w.size);
  }

  // Levels 0..stored: process 0 reads each one and sends every process its slice.
  void hand_out_stored_levels();
  // Computes level n and commits it on process 0.
  DistributedLevelStats build_level(int n);

 private:
  // This process's slice of level n computed and packed; returns the bands.
  int compute_slice(int n, std::uint64_t entries);
  // Level n's blocks encoded and committed on process 0; returns the bytes sent collecting them.
  std::uint64_t store_level(int n);

  Store* store_;
  TableId t_;
  const DistributedEvents& events_;
  World w_;
  StoreState state_;
  tbb::task_arena arena_;
  LevelIndex index_;
  StorageOrder order_;
  LevelTables levels_;
  std::vector<Slices> slices_;
  Exchange exchange_;
};

void DistributedBuild::hand_out_stored_levels() {
  constexpr int kTag = 5;
  for (int n = 0; n <= state_.stored; ++n) {
    const Slices& s = slices_[n];
    std::span<std::int8_t> mine = levels_.open(n, s.count(w_.rank), 0);
    if (w_.rank == 0) {
      if (events_.loading) events_.loading(n, state_.stored);
      std::vector<std::int8_t> all(index_.size(n));
      store_->read_level(t_, n, all);
      for (int q = 1; q < w_.size; ++q) send_bytes(all.data() + s.begin[q], s.count(q), q, kTag);
      std::copy(all.begin(), all.begin() + std::ptrdiff_t(s.count(0)), mine.begin());
    } else {
      recv_bytes(mine.data(), mine.size(), 0, kTag);
    }
    levels_.pack(n, arena_.max_concurrency());
  }
}

int DistributedBuild::compute_slice(int n, std::uint64_t entries) {
  const std::uint64_t slice = slices_[n].count(w_.rank);
  levels_.open(n, slice, kUnknownValue);
  auto progress = [&](std::uint64_t done) {
    if (w_.rank == 0 && events_.solving && slice > 0)
      events_.solving(n, std::min(entries, done * entries / slice), entries);
  };
  int bands = 0;
  arena_.execute([&] {
    with_rules(t_.rules, [&](auto r) {
      with_pits(
          t_.m,
          [&](auto pits) {
            SliceKernel<decltype(r), decltype(pits)::value> kernel(w_, index_, levels_, slices_,
                                                                   exchange_);
            bands = kernel.compute_level(n, progress);
          },
          PitsOneTo<kMaxPits>{});
    });
  });
  levels_.pack(n, arena_.max_concurrency());
  return bands;
}

std::uint64_t DistributedBuild::store_level(int n) {
  std::uint64_t first_block = 0, collect_bytes = 0;
  std::vector<std::string> share;
  arena_.execute([&] {
    share = encode_share(w_, index_, order_, levels_, slices_[n], n, state_.block_entries,
                         state_.zstd_level, exchange_, &first_block);
  });
  std::vector<std::string> blocks =
      collect_blocks(w_, std::move(share), first_block, &collect_bytes);
  if (w_.rank == 0) store_->write_level_blocks(t_, n, std::move(blocks));
  return collect_bytes;
}

DistributedLevelStats DistributedBuild::build_level(int n) {
  DistributedLevelStats stats;
  stats.n = n;
  stats.entries = index_.size(n);
  const auto level_start = Clock::now();
  const std::uint64_t bytes_before = exchange_.bytes;
  stats.bands = compute_slice(n, stats.entries);
  stats.solve_s = seconds_since(level_start);
  const std::uint64_t solve_bytes = exchange_.bytes - bytes_before;

  const auto store_start = Clock::now();
  const std::uint64_t collect_bytes = store_level(n);
  stats.store_s = seconds_since(store_start);

  const std::uint64_t store_bytes = exchange_.bytes - bytes_before - solve_bytes + collect_bytes;
  stats.solve_bytes = sum_over_processes(solve_bytes);
  stats.store_bytes = sum_over_processes(store_bytes);
  const std::uint64_t peak = peak_memory_bytes();
  stats.peak_memory_max = max_over_processes(peak);
  stats.peak_memory_sum = sum_over_processes(peak);
  return stats;
}

}  // namespace

BuildReport build_database_distributed(Store* store, const BuildOptions& o,
                                       const DistributedEvents& events) {
  const auto start = Clock::now();
  const World w = world();
  check_distributed_options(store, o, w);
  const StoreState state = broadcast_store_state(store, o.table, w);

  BuildReport report;
  report.packed = true;
  report.complete_through = std::min(state.stored, o.max_stones);
  if (state.stored < o.max_stones) {
    const int local = processes_on_this_machine();
    check_share_fits(o, w.size, local, physical_memory_bytes());
    DistributedBuild build(store, o, events, w, state, local);
    build.hand_out_stored_levels();
    report.first_built = state.stored + 1;
    for (int n = state.stored + 1; n <= o.max_stones; ++n) {
      maybe_killed(w.rank, n);
      const DistributedLevelStats stats = build.build_level(n);
      report.complete_through = n;
      report.entries_built += stats.entries;
      if (w.rank == 0 && events.level_done) events.level_done(stats);
    }
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace kalah
