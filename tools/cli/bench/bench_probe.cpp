// `kalah bench probe`: libkalah's binary probe (TableProbe) on a resident table and through the
// block cache, probes a second a thread.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/board.hpp"
#include "engine/stopwatch.hpp"
#include "kalah/kalah.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

struct ProbeBenchArgs {
  std::string db_path = kDefaultDbPath;
  GameOptions game;
  long long positions = 1 << 20;
  int passes = 20, threads = 1, batch = 6;
  long long cache_mb = 256;
};

const char* const kProbeBenchDescription =
    "Probes one table of the database through libkalah's binary probe (TableProbe, the\n"
    "call an engine makes at its search leaves): --positions fixed pseudo-random positions\n"
    "in its top five levels (stones scattered over both sides' pits, kalahs 0..2), first\n"
    "with the table decoded into memory (--passes passes on each of --threads threads, each\n"
    "thread over every position; one position a call, then --batch a call), then once\n"
    "through an LRU block cache of --cache-mb. Prints probes a second a thread; the two\n"
    "tables must agree on every value. The signature sums the margins found, weighted by\n"
    "the position's index.";

bool parse_probe_bench_args(int argc, char** argv, ProbeBenchArgs& a) {
  po::options_description desc("options");
  add_db_option(desc, a.db_path);
  add_table_options(desc, a.game);
  desc.add_options()("positions", po::value(&a.positions)->default_value(a.positions),
                     "positions probed, 1..2^26")(
      "passes", po::value(&a.passes)->default_value(a.passes),
      "passes over them with the table in memory, 1..1000")(
      "batch", po::value(&a.batch)->default_value(a.batch),
      "positions a call in the batched run (a node's children), 2..64")(
      "threads", po::value(&a.threads)->default_value(a.threads),
      "probing threads, each over every position, 0: all cores")(
      "cache-mb", po::value(&a.cache_mb)->default_value(a.cache_mb),
      "the block cache of the second run in MiB, 1..65536");
  po::variables_map vm;
  if (!parse_command(argc, argv,
                     "bench probe [--db PATH] [--rules R] [--pits m] [--positions N] [--passes P] "
                     "[--batch B] [--threads N] [--cache-mb MB]",
                     kProbeBenchDescription, desc, {}, vm))
    return false;
  a.game.check();
  check_range("positions", a.positions, 1, 1 << 26);
  check_range("passes", a.passes, 1, 1000);
  check_range("batch", a.batch, 2, 64);
  check_range("threads", a.threads, 0, 256);
  check_memory_mb("cache-mb", a.cache_mb, 1, 65536);
  a.threads = threads_or_all_cores(a.threads);
  return true;
}

// The i-th position: n = top - i % 5 stones (at least 0), each in a pit picked by a hash of (i,
// stone), kalahs i % 3 and i % 2.
api::BinaryPosition bench_position(int m, int top, std::uint64_t i) {
  api::BinaryPosition p;
  p.pits = m;
  const int n = std::max(0, top - int(i % 5));
  for (int s = 0; s < n; ++s) {
    const auto cell = int(mix(i << 8 | std::uint64_t(s)) % std::uint64_t(2 * m));
    if (cell < m)
      ++p.own[cell];
    else
      ++p.opp[cell - m];
  }
  p.own_kalah = int(i % 3);
  p.opp_kalah = int(i % 2);
  return p;
}

// Each position's margin; throws unless every one is exact.
std::vector<int> probe_all(const api::TableProbe& t, const std::vector<api::BinaryPosition>& ps) {
  std::vector<int> out(ps.size());
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const api::ProbeResult r = t.probe(ps[i]);
    if (!r.exact()) throw std::runtime_error("bench probe: a position inside the table was missed");
    out[i] = r.margin;
  }
  return out;
}

// Seconds for `passes` passes over ps on each of `threads` threads, each position probed alone
// or (batched) a node's worth at a time.
double timed_passes(const api::TableProbe& t, const std::vector<api::BinaryPosition>& ps,
                    int passes, int threads, std::size_t batch) {
  std::vector<long long> sums(std::size_t(threads), 0);
  const auto work = [&](int k) {
    api::ProbeResult out[64];
    long long sum = 0;
    for (int pass = 0; pass < passes; ++pass) {
      if (batch == 1) {
        for (const api::BinaryPosition& p : ps) sum += t.probe(p).margin;
        continue;
      }
      for (std::size_t i = 0; i < ps.size(); i += batch) {
        const std::size_t k = std::min(batch, ps.size() - i);
        t.probe(std::span(ps).subspan(i, k), std::span(out, k));
        for (std::size_t j = 0; j < k; ++j) sum += out[j].margin;
      }
    }
    sums[std::size_t(k)] = sum;
  };
  const auto start = std::chrono::steady_clock::now();
  // A probe's error (a damaged block) on any thread reaches the caller once all have stopped.
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  const auto guarded = [&](int k) {
    try {
      work(k);
    } catch (...) {
      errors[std::size_t(k)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(guarded, k);
  guarded(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  const double s = seconds_since(start);
  for (long long sum : sums)
    if (sum != sums[0]) throw std::runtime_error("bench probe: threads disagree");
  return s;
}

api::TableProbe open_probe(const ProbeBenchArgs& a, api::Options::Load load) {
  api::Options o;
  o.load = load;
  o.cache_bytes = std::size_t(a.cache_mb) << 20;
  const api::Database db(a.db_path, o);
  std::optional<api::TableProbe> t = db.table_probe(a.game.rules, a.game.pits);
  if (!t)
    throw api::Error(api::Error::Kind::kDatabase, a.db_path + " holds no " + a.game.rules +
                                                      " table of " + std::to_string(a.game.pits) +
                                                      " pits");
  return *t;
}

// The margins of ps from the table in memory, with the probes' rates printed.
std::vector<int> bench_resident(const ProbeBenchArgs& a, std::vector<api::BinaryPosition>& ps) {
  const api::TableProbe t = open_probe(a, api::Options::Load::kMemory);
  for (long long i = 0; i < a.positions; ++i)
    ps.push_back(bench_position(a.game.pits, t.max_stones(), std::uint64_t(i)));
  std::vector<int> want = probe_all(t, ps);
  std::printf("%s %d pits, levels 0..%d: %lld positions\n", t.rules().c_str(), t.pits(),
              t.max_stones(), a.positions);
  for (const int batch : {1, a.batch}) {
    const double s = timed_passes(t, ps, a.passes, a.threads, std::size_t(batch));
    std::printf("  in memory, %d a call: %d x %d passes in %.3f s, %.1f M probes/s a thread\n",
                batch, a.threads, a.passes, s, double(a.positions) * a.passes / s / 1e6);
  }
  return want;
}

int bench_probe(int argc, char** argv) {
  ProbeBenchArgs a;
  if (!parse_probe_bench_args(argc, argv, a)) return 0;
  std::vector<api::BinaryPosition> ps;
  ps.reserve(std::size_t(a.positions));
  const std::vector<int> want = bench_resident(a, ps);

  const api::TableProbe cached = open_probe(a, api::Options::Load::kCache);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int> got = probe_all(cached, ps);
  const double c = seconds_since(start);
  if (got != want) throw std::runtime_error("bench probe: the block cache disagrees with memory");
  std::printf("  block cache (%lld MiB): one pass in %.3f s, %.2f M probes/s\n", a.cache_mb, c,
              double(a.positions) / c / 1e6);

  std::uint64_t signature = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    signature += std::uint64_t(i + 1) * std::uint64_t(want[i] + 1024);
  std::printf("signature: %016llx\n", static_cast<unsigned long long>(signature));
  return 0;
}

const RegisterBenchWorkload reg{"probe", "libkalah's binary probe: resident and block cache",
                                &bench_probe};

}  // namespace
}  // namespace kalah::cli
