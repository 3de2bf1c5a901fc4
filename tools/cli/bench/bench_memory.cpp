// `kalah bench memory`: the machine's random-access latency at the footprints the solver uses.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/board.hpp"
#include "engine/huge_buffer.hpp"
#include "engine/physical_memory.hpp"
#include "engine/stopwatch.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

// mix (board.hpp), the boards' key mixer: addresses and values look random.

// Follows kChains independent chains of `steps` reads each over the 64-byte lines of `lines`
// (the buffer, `count` lines): each read's address depends on the word the previous read of its
// chain returned, so one chain's reads cannot overlap, while the chains' can. Returns the time
// per read in ns; *signature folds in where the chains ended.
template <int kChains>
double chase(const std::uint64_t* lines, std::uint64_t count, std::uint64_t steps,
             std::uint64_t* signature) {
  std::uint64_t at[kChains];
  for (int c = 0; c < kChains; ++c) at[c] = mix(std::uint64_t(c) + 1) % count;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t k = 0; k < steps; ++k)
    for (int c = 0; c < kChains; ++c) at[c] = mix(lines[at[c] * 8] + k) % count;
  const double s = seconds_since(start);
  for (int c = 0; c < kChains; ++c) *signature = mix(*signature ^ at[c]);
  return s * 1e9 / double(steps * kChains);
}

// Reads `steps` lines at addresses known in advance, each prefetched `ahead` reads before it is
// read; a read's address also depends on the previous read's value, so reads cannot overlap but
// through the prefetches. Returns the time per read in ns.
double prefetched(const std::uint64_t* lines, std::uint64_t count, std::uint64_t steps, int ahead,
                  std::uint64_t* signature) {
  static volatile std::uint64_t zero = 0;  // unknown to the compiler: keeps the reads serial
  const std::uint64_t z = zero;
  const auto line = [count](std::uint64_t k) { return mix(k ^ 0xF00D) % count; };
  std::uint64_t acc = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t k = 0; k < steps; ++k) {
    __builtin_prefetch(&lines[line(k + std::uint64_t(ahead)) * 8]);
    acc += lines[(line(k) ^ (acc & z)) * 8];
  }
  const double s = seconds_since(start);
  *signature = mix(*signature ^ acc);
  return s * 1e9 / double(steps);
}

int bench_memory(int argc, char** argv) {
  po::options_description desc("options");
  int min_mb = 16, max_mb = 2048;
  long long reads = 4'000'000;
  desc.add_options()("min-mb", po::value(&min_mb)->default_value(min_mb),
                     "smallest buffer in MiB (1..65536)")(
      "max-mb", po::value(&max_mb)->default_value(max_mb),
      "largest buffer in MiB (min-mb..65536, at most half the memory; by default 2048, or "
      "half the memory when that is less); sizes double from min-mb")(
      "reads", po::value(&reads)->default_value(reads), "reads per size and pattern (1000..1e10)");
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "bench memory [--min-mb N] [--max-mb N] [--reads R]",
          "Measures random reads of 64-byte lines in buffers of doubling sizes, allocated\n"
          "as the solver allocates its transposition table and resident database (huge pages\n"
          "advised, populated up front). For each size prints the time per read when each\n"
          "read's address depends on the previous one (the latency a search pays when it\n"
          "must wait for a table entry), when each read was prefetched 8 reads ahead, and\n"
          "when 8 independent chains are in flight. The signature folds in where the reads\n"
          "ended and is the same on every run with the same options.",
          desc, {}, vm))
    return 0;
  // Half the machine's memory at most: the buffer is filled, and an overcommitted one would be
  // killed, not refused.
  const long long half_ram_mb = (long long)(physical_memory_bytes() / 2 >> 20);
  if (!given(vm, "max-mb")) max_mb = int(std::min<long long>(max_mb, half_ram_mb));
  check_range("min-mb", min_mb, 1, 65536);
  check_range("max-mb", max_mb, min_mb, std::min(65536LL, half_ram_mb));
  check_range("reads", reads, 1000LL, 10'000'000'000LL);
  std::uint64_t signature = 0;
  for (long long mb = min_mb; mb <= max_mb; mb *= 2) {
    const std::size_t bytes = std::size_t(mb) << 20;
    const HugeBuffer buffer(bytes);
    auto* words = buffer.as<std::uint64_t>();
    const std::uint64_t count = bytes / 64;
    for (std::uint64_t i = 0; i < count; ++i) words[i * 8] = mix(i ^ 0x5EED);
    const double one = chase<1>(words, count, std::uint64_t(reads), &signature);
    const double ahead = prefetched(words, count, std::uint64_t(reads), 8, &signature);
    const double eight = chase<8>(words, count, std::uint64_t(reads) / 8, &signature);
    std::printf("%6lld MiB: %6.1f ns dependent, %6.1f ns prefetched 8 ahead, %5.1f ns 8 chains\n",
                mb, one, ahead, eight);
  }
  std::printf("signature %016llx\n", static_cast<unsigned long long>(signature));
  return 0;
}

const RegisterBenchWorkload reg{"memory", "random-read latency at doubling buffer sizes",
                                &bench_memory};

}  // namespace
}  // namespace kalah::cli
