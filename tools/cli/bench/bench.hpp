// The workloads of `kalah bench`: each a fixed, deterministic job printing a reproducible
// signature.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/position.hpp"

namespace kalah::cli {

// A workload gets argv with argv[0] naming it (as a subcommand gets its own) and returns the exit
// code. It must do the same work on every run (one thread unless it says otherwise, no randomness)
// and print a signature (node count, positions, checksum) that is identical from run to run.
using BenchFn = int (*)(int argc, char** argv);

struct BenchWorkload {
  std::string name;
  std::string summary;  // one line for `kalah bench --help`
  BenchFn run;
};

std::vector<BenchWorkload>& bench_workloads();

// Static registration from any tools/*.cpp:
// `static const RegisterBenchWorkload reg{"gen", "generate levels 0..N", &bench_gen};`
struct RegisterBenchWorkload {
  RegisterBenchWorkload(std::string name, std::string summary, BenchFn run) {
    bench_workloads().push_back({std::move(name), std::move(summary), run});
  }
};

// Up to `count` distinct positions of an m-pit board under `rules` that are not over, drawn from a
// fixed seed: lo..hi stones in pits spread over both sides, kalahs empty. The same on every run.
std::vector<Position> random_positions(Rules rules, int m, int lo, int hi, int count);

// --NAME "LO-HI" (or "N"): stones in pits beyond a table's levels, 0 <= LO <= HI <= 64. Throws
// InputError otherwise.
std::pair<int, int> parse_beyond(const char* name, const std::string& text);

}  // namespace kalah::cli
