// Storage benchmarks on real wetherell 6-pit levels: codec settings, level write/read, probes.
//
// Levels 0..KALAH_BENCH_STONES (default 14) are solved in memory first (a few seconds). Counters:
// bits_per_pos (stored bytes incl. block headers), entries/s, probe rates and cold latency.
//   build/tests/kalah_microbench --benchmark_filter='Codec|Level|Probe'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include <unistd.h>

#include "db/block_codec.hpp"
#include "db/probe.hpp"
#include "db/storage_order.hpp"
#include "db/store.hpp"
#include "solver/retrograde/generate.hpp"

namespace kalah {
namespace {

constexpr int kM = 6;
constexpr TableId kTable{Rules::kWetherell, kM};

struct Data {
  int top = 14;
  std::vector<std::vector<std::int8_t>> levels;  // LevelIndex order
  std::vector<std::int8_t> top_stored;           // level `top` in storage order
  std::vector<Position> positions;      // random positions of levels 0..top, by entry count
  std::vector<Position> top_positions;  // random positions of level top
};

const Data& data() {
  static const Data d = [] {
    Data d;
    if (const char* s = std::getenv("KALAH_BENCH_STONES")) d.top = std::atoi(s);
    const LevelIndex index(kM, d.top);
    LevelTables solved;
    for (int n = 0; n <= d.top; ++n) {
      generate_level(kTable.rules, index, solved, n, 0);
      for (std::uint64_t r = 0; r < index.size(n); ++r)
        d.levels.resize(n + 1), d.levels[n].push_back(std::int8_t(solved.level(n).future(r)));
    }
    const StorageOrder order(kM, d.top);
    d.top_stored.resize(index.size(d.top));
    Stones x[2 * kM];
    for (std::uint64_t r = 0; r < index.size(d.top); ++r) {
      index.unrank(r, d.top, x);
      d.top_stored[order.rank(x, d.top)] = d.levels[d.top][r];
    }
    std::mt19937_64 rng(42);
    std::uint64_t total = 0;
    for (int n = 0; n <= d.top; ++n) total += index.size(n);
    auto position = [&](int n, std::uint64_t r) {
      index.unrank(r, n, x);
      Position p;
      p.m = kM;
      for (int i = 0; i < kM; ++i) {
        p.own_pit(i) = x[i];
        p.opp_pit(i) = x[kM + i];
      }
      return p;
    };
    for (int i = 0; i < (1 << 20); ++i) {
      std::uint64_t r = rng() % total;
      int n = 0;
      while (r >= index.size(n)) r -= index.size(n++);
      d.positions.push_back(position(n, r));
      d.top_positions.push_back(position(d.top, rng() % index.size(d.top)));
    }
    return d;
  }();
  return d;
}

std::string temp_path(const char* tag) {
  return (std::filesystem::temp_directory_path() /
          (std::string("kalah_bench_") + tag + "_" + std::to_string(::getpid())))
      .string();
}

// A store holding levels 0..top with default options, built once, removed at exit.
struct BenchStore {
  std::string path = temp_path("store");
  std::unique_ptr<Store> store;
  BenchStore() {
    std::filesystem::remove_all(path);
    store = std::make_unique<Store>(path, true);
    for (int n = 0; n <= data().top; ++n) store->write_level(kTable, n, data().levels[n]);
  }
  ~BenchStore() {
    store.reset();
    std::filesystem::remove_all(path);
  }
};
Store& bench_store() {
  static BenchStore s;
  return *s.store;
}

// Where block b of the top level is stored, for the benches' bound blocks.
BlockPlace place(std::size_t b) {
  return {kTable, data().top, std::uint32_t(b), 1};
}

// Compression of the top level in storage order: args (zstd level, block entries).
void BM_Codec(benchmark::State& state) {
  data();  // solved before the clock starts
  const int level = int(state.range(0));
  const std::size_t block = std::size_t(state.range(1));
  const auto& v = data().top_stored;
  std::size_t bytes = 0, blocks = 0;
  for (auto _ : state) {
    bytes = blocks = 0;
    for (std::size_t first = 0; first < v.size(); first += block, ++blocks)
      bytes += encode_block({v.data() + first, std::min(block, v.size() - first)}, level).size();
  }
  state.SetBytesProcessed(std::int64_t(state.iterations() * v.size()));
  state.counters["bits_per_pos"] = 8.0 * double(bytes) / double(v.size());
  // Cold-path cost: decode every block once (checksums included), bound to its place as stored.
  std::vector<std::string> enc;
  for (std::size_t first = 0; first < v.size(); first += block) {
    enc.push_back(encode_block({v.data() + first, std::min(block, v.size() - first)}, level));
    bind_block(enc.back(), place(enc.size() - 1), "bench");
  }
  std::vector<std::int8_t> out(block);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t b = 0; b < enc.size(); ++b) {
    const BlockPlace at = place(b);
    decode_block(enc[b], {out.data(), std::min(block, v.size() - b * block)}, &at, "bench");
  }
  state.counters["decode_us_per_block"] =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      double(enc.size());
}
BENCHMARK(BM_Codec)
    ->ArgsProduct({{3, 9, 12, 13, 14, 15, 16, 17, 19}, {16384, 65536, 131072, 262144}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// write_level of the top level (gather into storage order, compress on all cores, durable commit).
void BM_WriteLevel(benchmark::State& state) {
  const Data& d = data();  // solved before the clock starts
  const std::string path = temp_path("write");
  std::filesystem::remove_all(path);
  StoreOptions o;
  o.zstd_level = int(state.range(0));
  {
    Store store(path, true, o);
    for (auto _ : state) store.write_level(kTable, d.top, d.levels[d.top]);
    const auto meta = store.level_meta(kTable, data().top);
    state.counters["bits_per_pos"] = 8.0 * double(meta->compressed_bytes) / double(meta->entries);
  }
  std::filesystem::remove_all(path);
  state.counters["entries/s"] = benchmark::Counter(
      double(state.iterations() * data().levels[data().top].size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WriteLevel)
    ->Arg(9)
    ->Arg(15)
    ->Arg(19)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// read_level of the top level on Arg threads (0: all cores), every block and the level checksum
// verified.
void BM_ReadLevel(benchmark::State& state) {
  Store& store = bench_store();
  std::vector<std::int8_t> out(data().levels[data().top].size());
  for (auto _ : state) store.read_level(kTable, data().top, out, unsigned(state.range(0)));
  state.counters["entries/s"] =
      benchmark::Counter(double(state.iterations() * out.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReadLevel)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);

// Random positions of levels 0..top through a warm cache (every block loaded beforehand).
void BM_ProbeWarm(benchmark::State& state) {
  static std::unique_ptr<Probe> probe;
  if (state.thread_index() == 0) {
    probe = std::make_unique<Probe>(bench_store(), kTable, std::size_t(1) << 30);
    for (const Position& p : data().positions) benchmark::DoNotOptimize(probe->future(p));
  }
  const auto& pos = data().positions;
  std::size_t i = std::size_t(state.thread_index()) * 7919;
  int sum = 0;
  for (auto _ : state) {
    sum += *probe->future(pos[i++ & (pos.size() - 1)]);
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeWarm)->Threads(1)->Threads(2);

// One probe of a random top-level position through a fresh (empty) cache: LMDB read of one block,
// checksums, zstd decompression (OS page cache warm).
void BM_ProbeCold(benchmark::State& state) {
  Store& store = bench_store();
  const auto& pos = data().top_positions;
  std::size_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto probe = std::make_unique<Probe>(store, kTable, 1 << 20);
    state.ResumeTiming();
    benchmark::DoNotOptimize(probe->future(pos[i++ & (pos.size() - 1)]));
    state.PauseTiming();
    probe.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_ProbeCold)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace kalah
