// Microbenchmarks of the exhaustive solver: whole solves of small start positions (fixed options,
// so node counts are a signature) and the solver boards' move rates.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_board.hpp"

namespace kalah {
namespace {

// Solves the start of (rules, m, k); reports nodes and nodes/s. memo_stones = -1 is the default.
void solve_start(benchmark::State& state, Rules rules, int m, int k, int memo_stones) {
  SolveOptions opt;
  opt.tt_bytes = std::size_t(64) << 20;
  opt.memo_stones = memo_stones;
  std::uint64_t nodes = 0;
  int margin = 0;
  for (auto _ : state) {
    const SolveResult r = solve(rules, start_position(m, k), opt);
    nodes += r.nodes;
    margin = r.margin;
    benchmark::DoNotOptimize(r.margin);
  }
  state.counters["nodes"] = benchmark::Counter(double(nodes) / state.iterations());
  state.counters["nodes/s"] = benchmark::Counter(double(nodes), benchmark::Counter::kIsRate);
  state.counters["margin"] = margin;
}

BENCHMARK_CAPTURE(solve_start, wetherell_5x3, Rules::kWetherell, 5, 3, -1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solve_start, wetherell_4x5, Rules::kWetherell, 4, 5, -1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solve_start, wetherell_4x5_no_memo, Rules::kWetherell, 4, 5, 0)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solve_start, kalah_6x3, Rules::kKalah, 6, 3, -1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solve_start, kalah_empty_capture_5x4, Rules::kKalahEmptyCapture, 5, 4, -1)
    ->Unit(benchmark::kMillisecond);

// Moves on a solver board B from random 6-pit positions (copy + play + key, as in the search).
template <class B>
void board_moves(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::vector<B> boards;
  for (int i = 0; i < 1024; ++i) {
    Position p = start_position(6, 0);
    for (int s = 0; s < 36; ++s) p.cell[(rng() % 2) * 7 + rng() % 6] += 1;
    boards.emplace_back(p);
  }
  std::uint64_t moves = 0, sum = 0;
  for (auto _ : state) {
    for (const auto& b : boards) {
      for (int i = 0; i < 6; ++i) {
        if (b.pit(i) == 0) continue;
        B c = b;
        bool again;
        sum += c.play(i, again) + again + c.key();
        ++moves;
      }
    }
  }
  benchmark::DoNotOptimize(sum);
  state.counters["moves/s"] = benchmark::Counter(double(moves), benchmark::Counter::kIsRate);
}
BENCHMARK_TEMPLATE(board_moves, solve_detail::SolveBoard<Wetherell, ByteArrayBoard<>>);
BENCHMARK_TEMPLATE(board_moves, solve_detail::SolveBoard<KalahRules, ByteArrayBoard<>>);
BENCHMARK_TEMPLATE(board_moves, solve_detail::SolveBoard<Wetherell, RegisterBoard<6>>);
BENCHMARK_TEMPLATE(board_moves, solve_detail::SolveBoard<KalahRules, RegisterBoard<6>>);

}  // namespace
}  // namespace kalah
