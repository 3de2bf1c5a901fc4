// `kalah bench [WORKLOAD]`: fixed workloads printing time, rate and a reproducible signature.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "engine/search.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {

std::vector<BenchWorkload>& bench_workloads() {
  static std::vector<BenchWorkload> all;
  return all;
}

namespace {

constexpr int kBenchPits = 6;
constexpr int kBenchMinStones = 3;
constexpr int kBenchMaxStones = 6;

// The rule sets --rules names: one, or all of them.
std::vector<Rules> bench_rule_sets(const std::string& rules) {
  std::vector<Rules> sets;
  if (rules == "all") {
    for_each_rules([&](Rules r) { sets.push_back(r); });
  } else if (auto r = parse_rules(rules)) {
    sets = {*r};
  } else {
    throw InputError("unknown rule set '" + rules + "' (" + rules_names() + ", all)");
  }
  return sets;
}

// The engine's nodes and seconds over the start positions of one rule set.
struct SearchRow {
  std::uint64_t nodes = 0;
  double seconds = 0;
};
SearchRow bench_search_rules(Rules r, int depth, int tt_mb) {
  SearchOptions opt;
  opt.tt_bytes = std::size_t(tt_mb) << 20;
  opt.randomize = false;
  Searcher searcher(r, opt);
  SearchRow row;
  for (int k = kBenchMinStones; k <= kBenchMaxStones; ++k) {
    searcher.clear();
    const SearchResult res = searcher.search(start_position(kBenchPits, k), {depth, 0, 0});
    row.nodes += res.nodes;
    row.seconds += res.seconds;
  }
  return row;
}

// The engine's search: start positions (6 pits, 3..6 stones, S to move), each searched from an
// empty TT to a fixed depth, one thread, no random choice. The node count is the signature.
int bench_search(int argc, char** argv) {
  po::options_description desc("options");
  int depth = 14;
  int tt_mb = 64;
  std::string rules = "all";
  desc.add_options()("depth,d", po::value(&depth)->default_value(depth),
                     "search depth in plies, 1..40")(
      "tt-mb", po::value(&tt_mb)->default_value(tt_mb),
      "transposition table size in MiB, 1..65536 and at most the memory available")(
      "rules", po::value(&rules)->default_value(rules),
      ("rule set: " + rules_names() + ", or all").c_str());
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "bench [search] [OPTIONS]",
          "Searches the 6-pit start positions with 3, 4, 5 and 6 stones per pit to a "
          "fixed depth\n(iterative deepening, one thread, an empty transposition table "
          "for each position,\nlowest pit among equal moves) and prints nodes, seconds "
          "and nodes/s per rule set.\nThe total node count is the signature: with the same "
          "--depth, --tt-mb and --rules it is\nthe same on every run and changes only when "
          "the search itself changes.",
          desc, {}, vm))
    return 0;
  check_range("depth", depth, 1, 40);
  check_memory_mb("tt-mb", tt_mb, 1, 65536);
  const std::vector<Rules> sets = bench_rule_sets(rules);
  std::printf(
      "bench search: %d pits, start positions with %d..%d stones, depth %d, TT %d MiB, "
      "1 thread\n",
      kBenchPits, kBenchMinStones, kBenchMaxStones, depth, tt_mb);
  std::printf("%-20s %14s %10s %12s\n", "rules", "nodes", "seconds", "nodes/s");
  std::uint64_t total_nodes = 0;
  double total_seconds = 0;
  for (Rules r : sets) {
    const auto [nodes, seconds] = bench_search_rules(r, depth, tt_mb);
    std::printf("%-20s %14llu %10.3f %12.0f\n", std::string(rules_name(r)).c_str(),
                static_cast<unsigned long long>(nodes), seconds, nodes / std::max(seconds, 1e-9));
    total_nodes += nodes;
    total_seconds += seconds;
  }
  std::printf("%-20s %14llu %10.3f %12.0f\n", "total", static_cast<unsigned long long>(total_nodes),
              total_seconds, total_nodes / std::max(total_seconds, 1e-9));
  std::printf("signature: %llu\n", static_cast<unsigned long long>(total_nodes));
  return 0;
}

const RegisterBenchWorkload reg_search{
    "search", "engine alpha-beta on fixed start positions (nodes/s)", &bench_search};

void print_workloads(std::ostream& out) {
  auto sorted = bench_workloads();
  std::sort(sorted.begin(), sorted.end(),
            [](const BenchWorkload& a, const BenchWorkload& b) { return a.name < b.name; });
  for (const auto& w : sorted)
    out << "  " << w.name << std::string(w.name.size() < 8 ? 8 - w.name.size() : 1, ' ')
        << w.summary << "\n";
}

int run_bench(int argc, char** argv) {
  // `kalah bench WORKLOAD ...` names a workload; without a name (or with only options) it is
  // search.
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string_view name = argv[1];
    for (const auto& w : bench_workloads())
      if (w.name == name) return w.run(argc - 1, argv + 1);
    throw InputError("unknown bench workload '" + std::string(name) + "' (see kalah bench --help)");
  }
  if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::cout << "usage: kalah bench [WORKLOAD] [OPTIONS]   (kalah bench WORKLOAD --help for its "
                 "options)\n\nRuns a fixed, deterministic workload and prints its time, rate and "
                 "signature.\nWithout a workload name: search.\n\nworkloads:\n";
    print_workloads(std::cout);
    std::cout << "\n";
    return bench_search(argc, argv);
  }
  return bench_search(argc, argv);
}

const RegisterCommand reg{"bench", "fixed workloads: time, rate and a reproducible signature",
                          &run_bench};

}  // namespace
}  // namespace kalah::cli
