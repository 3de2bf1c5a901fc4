// Engine microbenchmarks: move application, the search's boards, TT keys, whole searches.
//   build/tests/kalah_microbench --benchmark_filter='Engine'
// The search benchmarks report nodes/s like `kalah bench`; the others moves/s or keys/s.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "engine/move.hpp"
#include "engine/register_board.hpp"
#include "engine/search.hpp"
#include "engine/wide_board.hpp"

namespace kalah {
namespace {

// Positions from random play from the 6-pit start with k stones, with their legal pits.
struct Sample {
  Position p;
  int pit;  // 0-based, legal
};

template <class R>
std::vector<Sample> samples(int k, int count) {
  std::mt19937_64 rng(17);
  std::vector<Sample> out;
  while (int(out.size()) < count) {
    Position p = start_position(6, k);
    while (!is_over<R>(p) && int(out.size()) < count) {
      int legal[kMaxPits], n = 0;
      for (int i = 0; i < p.m; ++i)
        if (p.own_pit(i)) legal[n++] = i;
      const int pit = legal[rng() % n];
      out.push_back({p, pit});
      play_move<R>(p, pit);
    }
  }
  return out;
}

template <class R>
void EnginePlayMove(benchmark::State& state) {
  const auto s = samples<R>(int(state.range(0)), 4096);
  std::size_t i = 0;
  for (auto _ : state) {
    Position p = s[i].p;
    benchmark::DoNotOptimize(play_move<R>(p, s[i].pit));
    benchmark::DoNotOptimize(p);
    i = (i + 1) & 4095;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(EnginePlayMove<Wetherell>)->Arg(3)->Arg(6);
BENCHMARK(EnginePlayMove<KalahEmptyCapture>)->Arg(4);

// The search's board for 6 pits: one move and the flip, as in the search's inner loop.
template <class R>
void EngineRegisterBoardMove(benchmark::State& state) {
  const auto s = samples<R>(int(state.range(0)), 4096);
  std::vector<RegisterBoard<6>> boards;
  for (const auto& x : s) boards.emplace_back(x.p);
  std::size_t i = 0;
  for (auto _ : state) {
    auto b = boards[i];
    if (!R::apply(b, s[i].pit)) b.flip();
    benchmark::DoNotOptimize(b);
    i = (i + 1) & 4095;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(EngineRegisterBoardMove<Wetherell>)->Arg(3)->Arg(6);
BENCHMARK(EngineRegisterBoardMove<KalahEmptyCapture>)->Arg(4);

void EngineBoardKeys(benchmark::State& state) {
  const auto s = samples<Wetherell>(4, 4096);
  std::vector<RegisterBoard<6>> bytes;
  std::vector<WideBoard> wide;
  for (const auto& x : s) bytes.emplace_back(x.p), wide.emplace_back(x.p);
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += state.range(0) ? bytes[i].key() : wide[i].key();
    i = (i + 1) & 4095;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) ? "byte board" : "wide board");
}
BENCHMARK(EngineBoardKeys)->Arg(1)->Arg(0);

// A fixed-depth search of the 6-pit start (k = range(1)) from an empty 64 MiB TT; range(0) is the
// rule set. Counter nodes_per_s is the engine's nodes/s.
void EngineSearch(benchmark::State& state) {
  const Rules rules = Rules(state.range(0));
  SearchOptions opt;
  opt.randomize = false;
  opt.tt_bytes = 64u << 20;
  Searcher searcher(rules, opt);
  std::uint64_t nodes = 0;
  double seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    searcher.clear();
    state.ResumeTiming();
    const SearchResult r = searcher.search(start_position(6, int(state.range(1))), {12, 0, 0});
    nodes += r.nodes;
    seconds += r.seconds;
  }
  state.counters["nodes_per_s"] = double(nodes) / seconds;
  state.SetLabel(std::string(rules_name(rules)) + " depth 12");
}
BENCHMARK(EngineSearch)
    ->Args({int(Rules::kWetherell), 4})
    ->Args({int(Rules::kKalahEmptyCapture), 4})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kalah
