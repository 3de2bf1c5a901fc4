// The workloads of `kalah bench`: each a fixed, deterministic job printing a reproducible
// signature.
#pragma once

#include <string>
#include <vector>

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

}  // namespace kalah::cli
