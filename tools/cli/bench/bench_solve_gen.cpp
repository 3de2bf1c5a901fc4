// `kalah bench solve` and `kalah bench gen`: the solver's and the generator's fixed workloads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "engine/physical_memory.hpp"
#include "engine/stopwatch.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_tt.hpp"
#include "solver/retrograde/build.hpp"
#include "solver/retrograde/generate.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

struct SolveCase {
  Rules rules;
  int m, k;
};

// The TT of every solve of the workload, with or without a database: fixed here, not taken from
// SolveOptions' default, so that the signature changes only with the search.
constexpr int kBenchSolveTtMb = 64;

// Solves each case (one thread unless `threads`, a TT of tt_mb MiB, the solver's default first
// guess: the engine's value at 16 plies when the start has 20 or more stones in pits beyond the
// database, else 0) and prints a line each and the total; the total node count is the signature
// when threads == 1.
// With perfect_order, each case is then solved twice more: once into a TT kept here, and once
// with that TT as the move source at every node (SolveOptions::move_source): the second's
// nodes are the perfect-order limit, printed on a line of its own.
void run_solve_cases(const std::vector<SolveCase>& cases,
                     const std::vector<std::unique_ptr<Store>>& stores, int threads, int tt_mb,
                     bool perfect_order) {
  std::uint64_t total_nodes = 0;
  double total_s = 0;
  for (const SolveCase& c : cases) {
    SolveOptions opt;
    opt.threads = threads;
    opt.tt_bytes = std::size_t(tt_mb) << 20;
    std::unique_ptr<Probe> probe;
    double load_s = 0;
    if (!stores.empty()) {
      const TableId t{c.rules, c.m};
      const Store* store = nullptr;
      for (const auto& st : stores) {
        const auto held = st->tables();
        if (!store && std::find(held.begin(), held.end(), t) != held.end()) store = st.get();
      }
      if (store == nullptr) throw InputError("no database given holds the table " + to_string(t));
      const auto start = std::chrono::steady_clock::now();
      probe = std::make_unique<Probe>(*store, t, 0, TableLoad::kMemory);
      load_s = seconds_since(start);
      opt.oracle = probe.get();
    }
    const SolveResult r = solve(c.rules, start_position(c.m, c.k), opt);
    total_nodes += r.nodes;
    total_s += r.seconds;
    std::printf("%-20s %dx%d  margin %+d  %12llu nodes  %7.3f s  %6.2f M nodes/s",
                std::string(rules_name(c.rules)).c_str(), c.m, c.k, r.margin,
                static_cast<unsigned long long>(r.nodes), r.seconds,
                r.seconds > 0 ? r.nodes / r.seconds / 1e6 : 0.0);
    if (probe) std::printf("  (<= %d table loaded in %.2f s)", probe->max_stones(), load_s);
    std::printf("\n");
    if (perfect_order) {
      SolveTT source(opt.tt_bytes);
      SolveOptions first = opt;
      first.tt = &source;
      const SolveResult filled = solve(c.rules, start_position(c.m, c.k), first);
      SolveOptions limit = opt;
      limit.move_source = &source;
      const SolveResult l = solve(c.rules, start_position(c.m, c.k), limit);
      if (filled.margin != r.margin || l.margin != r.margin)
        throw std::logic_error("bench solve: the perfect-order solves found another margin");
      std::printf(
          "  perfect order: %12llu nodes, %llu expanded (%llu without it): %.2fx fewer "
          "expanded\n",
          static_cast<unsigned long long>(l.nodes), static_cast<unsigned long long>(l.expanded),
          static_cast<unsigned long long>(r.expanded),
          l.expanded > 0 ? double(r.expanded) / double(l.expanded) : 0.0);
    }
  }
  std::printf("total %llu nodes%s, %.3f s, %.2f M nodes/s\n",
              static_cast<unsigned long long>(total_nodes), threads == 1 ? " (signature)" : "",
              total_s, total_s > 0 ? total_nodes / total_s / 1e6 : 0.0);
}

// A --start value: RULES:MxK, m pits a side (1..kMaxPits) and k stones a pit (1 or more, within
// the stones a board holds); InputError naming the value otherwise.
SolveCase parse_start(const std::string& text) {
  const std::size_t colon = text.find(':');
  try {
    const auto size = colon == std::string::npos
                          ? std::nullopt
                          : parse_board_size(std::string_view(text).substr(colon + 1));
    if (!size) throw InputError("expected RULES:MxK, e.g. wetherell:6x4");
    return {parse_rules_name(text.substr(0, colon)), size->first, size->second};
  } catch (const std::exception& e) {
    throw InputError("--start " + text + ": " + e.what());
  }
}

// What `kalah bench solve` was asked.
struct BenchSolveArgs {
  std::vector<std::string> dbs;
  int threads = 1;
  int tt_mb = kBenchSolveTtMb;
  std::vector<std::string> starts;
  bool perfect_order = false;
};

// Parses the command line into a; false when --help was printed.
bool parse_bench_solve_args(int argc, char** argv, BenchSolveArgs& a) {
  po::options_description desc("options");
  desc.add_options()("db", po::value(&a.dbs)->multitoken(),
                     "database directories: solve the 6-pit starts, each with the first that "
                     "holds its table")("threads", po::value(&a.threads)->default_value(a.threads),
                                        "search threads, 0..256 (0: all cores)")(
      "start", po::value(&a.starts)->multitoken(),
      "solve these starts instead, each RULES:MxK (e.g. wetherell:6x4: m pits a side, k "
      "stones a pit)")("tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
                       "transposition table of every solve in MiB, 1..65536 and at most the "
                       "memory available")(
      "perfect-order", po::bool_switch(&a.perfect_order),
      "also each start's perfect-order limit: solved again with a finished solve's TT as "
      "the move source at every node");
  po::variables_map vm;
  return parse_command(
      argc, argv,
      "bench solve [--db PATH...] [--start RULES:MxK...] [--threads N] [--tt-mb MB] "
      "[--perfect-order]",
      "Without --db: solves fixed start positions without a database: wetherell 4x6,\n"
      "kalah 5x3, kalah-empty-capture 5x4. With --db: the 6-pit starts wetherell 6x3,\n"
      "kalah-empty-capture 6x4 and kalah 6x4, each with its table from the first database\n"
      "that holds it, decoded into memory first (a table no database holds is an error).\n"
      "--start names the starts instead (with --db, each from the first database that\n"
      "holds its table). Every solve: a " +
          std::to_string(kBenchSolveTtMb) +
          " MiB TT (--tt-mb), the solver's default first guess (the engine's value at\n" +
          std::to_string(SolveOptions{}.guess_depth) +
          " plies when the start has 20 or more stones in pits beyond the database).\n"
          "Prints each margin, nodes, seconds (search only) and nodes/s; with one thread the\n"
          "total node count is the signature.\n"
          "With --perfect-order, each start is then solved twice more: once into a TT of\n"
          "the same size, once with that TT's stored move searched first at every node the\n"
          "TT covers. The second's nodes and expanded nodes (those whose moves were searched)\n"
          "are printed below the start's line, beside its own expanded nodes: how far the\n"
          "move order is from its limit. The total counts the plain solves only.",
      desc, {}, vm);
}

// The starts to solve: --start's, else the fixed ones (6-pit ones with a database).
std::vector<SolveCase> bench_solve_cases(const std::vector<SolveCase>& named, bool with_db) {
  if (!named.empty()) return named;
  if (!with_db)
    return {{Rules::kWetherell, 4, 6}, {Rules::kKalah, 5, 3}, {Rules::kKalahEmptyCapture, 5, 4}};
  return {{Rules::kWetherell, 6, 3}, {Rules::kKalahEmptyCapture, 6, 4}, {Rules::kKalah, 6, 4}};
}

int bench_solve(int argc, char** argv) {
  BenchSolveArgs a;
  if (!parse_bench_solve_args(argc, argv, a)) return 0;
  int threads = a.threads;
  const int tt_mb = a.tt_mb;
  check_range("threads", threads, 0, 256);
  threads = threads_or_all_cores(threads);
  check_memory_mb("tt-mb", tt_mb, 1, 65536);
  std::vector<SolveCase> named;
  for (const std::string& start : a.starts) named.push_back(parse_start(start));
  std::vector<std::unique_ptr<Store>> stores;
  for (const std::string& path : a.dbs) stores.push_back(std::make_unique<Store>(path, false));
  std::printf("bench solve: %s, TT %d MiB, %d thread%s\n",
              stores.empty()  ? "no database"
              : named.empty() ? "6-pit tables in memory"
                              : "tables in memory",
              tt_mb, threads, threads == 1 ? "" : "s");
  run_solve_cases(bench_solve_cases(named, !stores.empty()), stores, threads, tt_mb,
                  a.perfect_order);
  return 0;
}

int bench_gen(int argc, char** argv) {
  po::options_description desc("options");
  GameOptions game;
  int max_stones = 16, threads = 0;
  long long memory_limit_mb = 0;
  add_table_options(desc, game);
  desc.add_options()("max-stones", po::value(&max_stones)->default_value(max_stones),
                     "levels 0..N (0..24)")("threads", po::value(&threads)->default_value(threads),
                                            "worker threads, 0..1024; 0: all cores")(
      "memory-limit", po::value(&memory_limit_mb)->default_value(memory_limit_mb),
      "MiB the tables may use, as gen's (packed levels when bytes do not fit); 0: 7/8 of memory");
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "bench gen [--rules R] [--pits m] [--max-stones N] [--threads T] [--memory-limit MiB]",
          "Solves levels 0..N of a table in memory (no storage) as gen does, its levels in bytes\n"
          "or packed as gen would keep them within --memory-limit, and prints the entries,\n"
          "seconds and entries/s of each of the top four levels and of all, and the tables' peak\n"
          "memory; the signature is a checksum of all values, the same for any --threads and\n"
          "either layout.",
          desc, {}, vm))
    return 0;
  game.check();
  check_range("max-stones", max_stones, 0, 24);
  check_range("threads", threads, 0, 1024);
  if (memory_limit_mb != 0) check_memory_mb("memory-limit", memory_limit_mb, 1, memory_mb());
  const std::uint64_t have = physical_memory_bytes();
  const TableId table{game.parsed_rules(), game.pits};
  const bool packed =
      memory_limit_mb > 0
          ? build_packs_levels(table, max_stones, std::uint64_t(memory_limit_mb) << 20,
                               "--memory-limit")
          : build_packs_levels(table, max_stones, have - have / 8, "7/8 of this machine's memory");
  const LevelIndex index(game.pits, max_stones);
  LevelTables levels(0, packed);
  std::uint64_t peak = 0;
  std::uint64_t entries = 0, sum = 0;
  double solving = 0;  // seconds in generate_level: the signature's reads are not timed
  for (int n = 0; n <= max_stones; ++n) {
    peak = std::max(peak, levels.memory_bytes() + index.size(n));  // level n in bytes
    const auto t = std::chrono::steady_clock::now();
    generate_level(game.parsed_rules(), index, levels, n, threads);
    const double s = seconds_since(t);
    solving += s;
    entries += index.size(n);
    for (std::uint64_t r = 0; r < index.size(n); ++r)
      sum = sum * 31 + std::uint64_t(std::uint8_t(levels.level(n).future(r)));
    if (n >= max_stones - 3)
      std::printf("level %2d: %12llu entries  %7.3f s  %6.2f M/s\n", n,
                  static_cast<unsigned long long>(index.size(n)), s,
                  s > 0 ? index.size(n) / s / 1e6 : 0.0);
  }
  std::printf("tables: levels %s, peak %.1f MiB\n", packed ? "packed" : "in bytes",
              double(peak) / double(1 << 20));
  std::printf("%s m=%d levels 0..%d: %llu entries in %.3f s, %.2f M entries/s, signature %016llx\n",
              game.rules.c_str(), game.pits, max_stones, static_cast<unsigned long long>(entries),
              solving, entries / solving / 1e6, static_cast<unsigned long long>(sum));
  return 0;
}

const RegisterBenchWorkload reg_solve{"solve", "solve fixed start positions (--db: 6-pit with it)",
                                      &bench_solve};
const RegisterBenchWorkload reg_gen{"gen", "solve database levels 0..N in memory", &bench_gen};

}  // namespace
}  // namespace kalah::cli
