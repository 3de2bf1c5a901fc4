// generate_level: one level of a table computed in parallel with TBB.
#include "solver/retrograde/generate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "solver/retrograde/arena_threads.hpp"

namespace kalah {

void generate_level(Rules rules, const LevelIndex& index, LevelTables& levels, int n, int threads,
                    const LevelProgress& progress) {
  const std::uint64_t total = index.size(n);
  levels.open(n, total, kUnknownValue, threads);
  std::atomic<std::uint64_t> done{0};
  // The progress reporter's thread, stopped and joined however the level ends; an error in it is
  // rethrown here once the level is done.
  struct Reporter {
    std::atomic<bool> finished{false};
    std::exception_ptr error;
    std::thread thread;
    void stop() {
      finished = true;
      if (thread.joinable()) thread.join();
    }
    ~Reporter() { stop(); }
  } reporter;
  if (progress) {
    reporter.thread = std::thread([&] {
      try {
        while (!reporter.finished.load()) {
          progress(n, done.load(), total);
          for (int i = 0; i < 10 && !reporter.finished.load(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      } catch (...) {
        reporter.error = std::current_exception();
      }
    });
  }
  const std::uint64_t grain = 1 << 14;
  with_rules(rules, [&](auto r) {
    with_pits(
        index.m(),
        [&](auto pits) {
          using Kernel = LevelKernel<decltype(r), decltype(pits)::value>;
          tbb::task_arena arena(arena_threads(threads));
          arena.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, total, grain),
                              [&](const tbb::blocked_range<std::uint64_t>& range) {
                                Kernel kernel(index, levels);
                                kernel.compute_range(n, range.begin(), range.end());
                                done.fetch_add(range.size(), std::memory_order_relaxed);
                              });
          });
        },
        PitsOneTo<kMaxPits>{});
  });
  levels.pack(n, threads);
  reporter.stop();
  if (reporter.error) std::rethrow_exception(reporter.error);
  if (progress) progress(n, total, total);
}

}  // namespace kalah
