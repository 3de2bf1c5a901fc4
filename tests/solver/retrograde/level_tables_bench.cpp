// Microbenchmark: opening a generator level (allocation and first touch of its pages) by 1 or 2
// threads.
#include <benchmark/benchmark.h>

#include "db/arrangements.hpp"
#include "solver/retrograde/level_tables.hpp"

namespace {

using namespace kalah;

// Level 22 of a 6-pit table (193,536,720 entries), opened by state.range(0) threads.
void BM_OpenLevel(benchmark::State& state) {
  const std::uint64_t entries = *arrangement_count(12, 22);
  for (auto _ : state) {
    LevelTables levels(1, false);
    benchmark::DoNotOptimize(levels.open(0, entries, kUnknownValue, int(state.range(0))).data());
  }
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(entries));
}
BENCHMARK(BM_OpenLevel)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
