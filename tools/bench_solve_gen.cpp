// `kalah bench solve` and `kalah bench gen`: the solver's and the generator's fixed workloads.
#include <chrono>
#include <cstdio>

#include "bench.hpp"
#include "generate.hpp"
#include "options.hpp"
#include "solve.hpp"

namespace kalah::cli {
namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int bench_solve(int argc, char** argv) {
  po::options_description desc("options");
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "bench solve",
          "Solves fixed start positions without a database (one thread, 256 MiB TT):\n"
          "wetherell 4x6, kalah 5x3, kalah-empty-capture 5x4. Prints each margin, nodes,\n"
          "seconds and nodes/s; the total node count is the signature.",
          desc, {}, vm))
    return 0;
  struct Case {
    Rules rules;
    int m, k;
  };
  const Case cases[] = {
      {Rules::kWetherell, 4, 6}, {Rules::kKalah, 5, 3}, {Rules::kKalahEmptyCapture, 5, 4}};
  std::uint64_t total_nodes = 0;
  double total_s = 0;
  for (const Case& c : cases) {
    SolveOptions opt;
    const SolveResult r = solve(c.rules, start_position(c.m, c.k), opt);
    total_nodes += r.nodes;
    total_s += r.seconds;
    std::printf("%-20s %dx%d  margin %+d  %12llu nodes  %7.3f s  %6.2f M nodes/s\n",
                std::string(rules_name(c.rules)).c_str(), c.m, c.k, r.margin,
                static_cast<unsigned long long>(r.nodes), r.seconds,
                r.seconds > 0 ? r.nodes / r.seconds / 1e6 : 0.0);
  }
  std::printf("total %llu nodes (signature), %.3f s, %.2f M nodes/s\n",
              static_cast<unsigned long long>(total_nodes), total_s,
              total_s > 0 ? total_nodes / total_s / 1e6 : 0.0);
  return 0;
}

int bench_gen(int argc, char** argv) {
  po::options_description desc("options");
  GameOptions game;
  int max_stones = 16, threads = 0;
  add_game_options(desc, game);
  desc.add_options()("max-stones", po::value(&max_stones)->default_value(max_stones),
                     "levels 0..N (0..24)")("threads", po::value(&threads)->default_value(threads),
                                            "worker threads; 0: all cores");
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "bench gen [--rules R] [--pits m] [--max-stones N] [--threads T]",
          "Solves levels 0..N of a table in memory (no storage) and prints entries/s per\n"
          "level and in all; the signature is a checksum of all values.",
          desc, {}, vm))
    return 0;
  game.check();
  check_range("max-stones", max_stones, 0, 24);
  check_range("threads", threads, 0, 1024);
  const LevelIndex index(game.pits, max_stones);
  LevelTables levels;
  std::uint64_t entries = 0, sum = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0; n <= max_stones; ++n) {
    const auto t = std::chrono::steady_clock::now();
    solve_level(game.parsed_rules(), index, levels, n, threads);
    const double s = since(t);
    entries += index.size(n);
    for (std::int8_t v : levels[n]) sum = sum * 31 + std::uint64_t(std::uint8_t(v));
    if (n >= max_stones - 3)
      std::printf("level %2d: %12llu entries  %7.3f s  %6.2f M/s\n", n,
                  static_cast<unsigned long long>(index.size(n)), s,
                  s > 0 ? index.size(n) / s / 1e6 : 0.0);
  }
  const double s = since(start);
  std::printf("%s m=%d levels 0..%d: %llu entries in %.3f s, %.2f M entries/s, signature %016llx\n",
              game.rules.c_str(), game.pits, max_stones, static_cast<unsigned long long>(entries),
              s, entries / s / 1e6, static_cast<unsigned long long>(sum));
  return 0;
}

const RegisterBenchWorkload reg_solve{"solve", "solve fixed start positions without a database",
                                      &bench_solve};
const RegisterBenchWorkload reg_gen{"gen", "solve database levels 0..N in memory", &bench_gen};

}  // namespace
}  // namespace kalah::cli
