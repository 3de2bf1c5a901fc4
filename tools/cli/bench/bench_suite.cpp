// `kalah bench suite`: the solver's fixed suite of proofs, nodes by kind, against a baseline.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "db/xxhash64.hpp"
#include "engine/move.hpp"
#include "engine/stopwatch.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_tt.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"
#include "tools/cli/solve_report.hpp"

namespace kalah::cli {
namespace {

using Json = nlohmann::ordered_json;

// One proof of the suite: a position solved as `kalah solve` does (margin, best moves, PV), or,
// with every_move, analysed as `kalah query` does (every move exact); with the levels 0..table of
// its rule set's 6-pit table (-1: no table).
struct Workload {
  std::string name;
  Rules rules;
  Position position;
  int table;
  bool every_move = false;
  std::string compare_to;  // a workload whose 1-thread nodes this one's are shown against
};

const char* const kFourPlies = "kalah-6x4-ply4-";
constexpr int kFourPlyPositions = 8;

// Eight positions four plies into Kalah(6,4) under `kalah` (an extra turn's move is a ply): every
// distinct position whose game is not finished, in text order, taken at even steps.
std::vector<Position> four_plies_in() {
  std::set<std::string> seen;
  const auto walk = [&](auto& self, const Position& p, int plies) -> void {
    if (game_finished(Rules::kKalah, p)) return;
    if (plies == 0) {
      seen.insert(to_string(p));
      return;
    }
    for (int pit = 1; pit <= p.m; ++pit) {
      if (p.own_pit(pit - 1) == 0) continue;
      Position next = p;
      play_move(Rules::kKalah, next, pit);
      self(self, next, plies - 1);
    }
  };
  walk(walk, start_position(6, 4), 4);
  const std::vector<std::string> all(seen.begin(), seen.end());
  std::vector<Position> out;
  for (int i = 0; i < kFourPlyPositions; ++i)
    out.push_back(parse_position(all[all.size() * i / kFourPlyPositions]));
  return out;
}

// The suite, workloads that share a table next to each other.
std::vector<Workload> suite_workloads() {
  const Position k64 = start_position(6, 4), k65 = start_position(6, 5);
  std::vector<Workload> w = {
      {"kalah-6x4-20", Rules::kKalah, k64, 20, false, ""},
  };
  const std::vector<Position> plies = four_plies_in();
  for (std::size_t i = 0; i < plies.size(); ++i)
    w.push_back({kFourPlies + std::to_string(i + 1), Rules::kKalah, plies[i], 20, false, ""});
  const std::vector<Workload> rest = {
      {"kalah-6x4-16", Rules::kKalah, k64, 16, false, ""},
      {"empty-6x4-20", Rules::kKalahEmptyCapture, k64, 20, false, ""},
      {"etude-6x3-20", Rules::kWetherell, start_position(6, 3), 20, false, ""},
      {"etude-6x3-20-every-move", Rules::kWetherell, start_position(6, 3), 20, true,
       "etude-6x3-20"},
      {"kalah-6x5-24", Rules::kKalah, k65, 24, false, ""},
      {"empty-6x5-24", Rules::kKalahEmptyCapture, k65, 24, false, ""},
      {"empty-54-stones-24", Rules::kKalahEmptyCapture,
       parse_position("0,2,1,0,9,9,4/1,8,1,8,8,7,2 N"), 24, false, ""},
      {"etude-6x4-24", Rules::kWetherell, k64, 24, false, ""},
      {"small-etude-4x6", Rules::kWetherell, start_position(4, 6), -1, false, ""},
      {"small-kalah-5x3", Rules::kKalah, start_position(5, 3), -1, false, ""},
      {"small-empty-5x4", Rules::kKalahEmptyCapture, start_position(5, 4), -1, false, ""},
  };
  w.insert(w.end(), rest.begin(), rest.end());
  return w;
}

std::string table_text(const Workload& w) {
  return w.table < 0 ? "no table"
                     : "<= " + std::to_string(w.table) + " " + std::string(rules_name(w.rules)) +
                           " " + std::to_string(w.position.m) + "-pit table";
}

// What `kalah bench suite` was asked.
struct SuiteArgs {
  std::vector<std::string> dbs, only;
  std::string threads_text = "1,2", json_path, baseline_path;
  std::vector<int> threads;
  long long tt_mb = 0;
  int best_first = -1;  // SolveOptions::best_first_plies of the measured solves
  bool perfect_order = false, levels = false, list = false;
};

const char* const kSuiteDescription =
    "Runs the solver's fixed suite of proofs and prints, for each, its nodes by kind on each\n"
    "--threads count: every node visited, those expanded (their moves searched), those the\n"
    "table answered and those settled by transposition-table entries; and the search's wall\n"
    "time (the table's loading not counted). The workloads (--list names them):\n"
    "Kalah(6,4) under both literature rule sets and the 3-stone etude with <= 20 tables, with\n"
    "Kalah(6,4) `kalah` also with <= 16; eight positions four plies into Kalah(6,4) `kalah`\n"
    "(<= 20); the etude's every-move analysis (as kalah query does it, <= 20); Kalah(6,5) under\n"
    "both with <= 24, the 54-stone position `0,2,1,0,9,9,4/1,8,1,8,8,7,2 N` (kalah-empty-capture,\n"
    "<= 24) and the 4-stone etude (<= 24); the small boards of bench solve without a table.\n"
    "A workload's table comes from the first --db holding its rule set's 6-pit table through\n"
    "that many stones (levels beyond are not used), decoded into memory once for the workloads\n"
    "that share it; a workload no database can serve is reported as skipped, naming the table.\n"
    "A database's opening book is not used: every value is proven by the search.\n"
    "Every solve has an automatic table (as kalah solve's) unless --tt-mb gives one size.\n"
    "--best-first P solves with kalah solve's --best-first P (0: depth-first throughout); by\n"
    "default each workload is solved as its command does it: the every-move analysis with\n"
    "kalah query's best-first top (in each test one thread runs by itself), the others\n"
    "with kalah solve's refutation top (its --best-first -1). The perfect-order limit and\n"
    "the levels' solves are depth-first.\n"
    "--perfect-order also solves each workload twice more on one thread (into a table, then\n"
    "with that table's move first at every node): the perfect-order limit of its expanded\n"
    "nodes. --levels also solves each workload once more on one thread, tracing what it expands:\n"
    "the expansions and the distinct positions expanded at each count of stones in pits, their\n"
    "difference being the positions expanded again.\n"
    "--json writes every figure to a file; --baseline reads such a file and prints, for\n"
    "each workload in both, this run's expanded nodes and time over the baseline's and the share\n"
    "of the gap to the perfect-order limit closed: (baseline - now) / (baseline - limit).\n"
    "The signature is the total of the one-thread solves' nodes: the same on every run with\n"
    "the same workloads and tables.";

std::vector<int> parse_threads_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || n < 1 || n > 256)
      throw InputError("--threads " + text + ": expected thread counts 1..256, e.g. 1,2");
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  if (out.empty()) throw InputError("--threads: expected thread counts 1..256, e.g. 1,2");
  return out;
}

// Parses and checks the command line; false when --help was answered.
bool parse_suite_args(int argc, char** argv, SuiteArgs& a) {
  po::options_description desc("options");
  desc.add_options()("db", po::value(&a.dbs)->multitoken(),
                     "database directories holding the workloads' tables")(
      "threads", po::value(&a.threads_text)->default_value(a.threads_text),
      "thread counts, comma-separated (each 1..256): every workload on each")(
      "only", po::value(&a.only)->multitoken(), "run these workloads only (names: --list)")(
      "list", po::bool_switch(&a.list), "print the workloads and the table each needs, and exit")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "every solve's transposition table in MiB; 0: automatic, as kalah solve's")(
      "best-first", po::value(&a.best_first)->default_value(a.best_first),
      "solve with a best-first top of this many plies (kalah solve --best-first), 0..64; -1: as "
      "each workload's command does")(
      "perfect-order", po::bool_switch(&a.perfect_order),
      "also each workload's perfect-order limit (two more one-thread solves)")(
      "levels", po::bool_switch(&a.levels),
      "also each workload's expansions and distinct positions expanded by stones in pits (one "
      "more one-thread solve)")("json", po::value(&a.json_path),
                                "write every figure to this file as JSON")(
      "baseline", po::value(&a.baseline_path),
      "an earlier run's --json file: ratios and the share of the gap closed against it");
  po::variables_map vm;
  if (!parse_command(argc, argv,
                     "bench suite [--db PATH...] [--threads LIST] [--only NAME...] [--list] "
                     "[--tt-mb MB] [--best-first P] [--perfect-order] [--levels] [--json FILE] "
                     "[--baseline FILE]",
                     kSuiteDescription, desc, {}, vm))
    return false;
  a.threads = parse_threads_list(a.threads_text);
  if (a.tt_mb != 0) check_memory_mb("tt-mb", a.tt_mb, 1, 65536);
  check_range("best-first", a.best_first, -1, 64);
  return true;
}

// The figures of one solve.
struct Run {
  int threads = 1;
  SolveResult r;
};

Json run_json(const Run& run) {
  const SolveResult& r = run.r;
  return {{"threads", run.threads},
          {"margin", r.margin},
          {"nodes", r.nodes},
          {"expanded", r.expanded},
          {"table_hits", r.oracle_hits},
          {"tt_cutoffs", r.tt_cutoffs},
          {"seconds", r.seconds},
          {"best_first_tree", best_first_tree_json(r)}};
}

// The tables the workloads use: one probe at a time, in memory, its book left out.
class Tables {
 public:
  explicit Tables(const std::vector<std::string>& paths) {
    for (const std::string& path : paths) stores_.push_back(std::make_unique<Store>(path, false));
  }

  // The probe for w's table, or nullopt with why not in *why; loading time in *load_s.
  Probe* probe_for(const Workload& w, std::string* why, double* load_s) {
    *load_s = 0;
    const TableId t{w.rules, w.position.m};
    const Store* store = nullptr;
    int best = -1;
    for (const auto& s : stores_) {
      const auto held = s->tables();
      if (std::find(held.begin(), held.end(), t) == held.end()) continue;
      const int through = s->complete_through(t);
      best = std::max(best, through);
      if (through >= w.table) {
        store = s.get();
        break;
      }
    }
    if (store == nullptr) {
      *why = "needs a " + table_text(w) +
             (best >= 0 ? " (the databases given hold it through " + std::to_string(best) + ")"
              : stores_.empty() ? " (--db)"
                                : " (no database given holds it)");
      return nullptr;
    }
    if (!probe_ || probe_->table() != t || probe_levels_ != w.table || probe_store_ != store) {
      probe_.reset();  // one table in memory at a time
      const auto start = std::chrono::steady_clock::now();
      probe_ = std::make_unique<Probe>(*store, t, 0, TableLoad::kMemory, 0, w.table);
      probe_->forget_book();
      *load_s = seconds_since(start);
      probe_levels_ = w.table;
      probe_store_ = store;
    }
    return probe_.get();
  }

 private:
  std::vector<std::unique_ptr<Store>> stores_;
  std::unique_ptr<Probe> probe_;
  int probe_levels_ = -1;
  const Store* probe_store_ = nullptr;
};

SolveOptions solve_options(const Workload& w, Probe* probe, int threads, long long tt_mb) {
  SolveOptions o;
  o.oracle = probe;
  o.threads = threads;
  o.every_move = w.every_move;
  o.find_pv = !w.every_move;
  o.best_first_plies = 0;
  if (tt_mb > 0) {
    o.tt_bytes = std::size_t(tt_mb) << 20;
  } else {
    o.tt_bytes = auto_tt_bytes(w.rules, w.position, probe);
    o.tt_start_bytes = kAutoTtStartBytes;
  }
  return o;
}

SolveResult solve_checked(const Workload& w, const SolveOptions& o) {
  SolveResult r = solve(w.rules, w.position, o);
  if (!r.complete) throw std::runtime_error("bench suite: " + w.name + " did not complete");
  return r;
}

// Two more one-thread solves: into a TT, then with its moves first (SolveOptions::move_source).
SolveResult perfect_order_limit(const Workload& w, Probe* probe, long long tt_mb, int margin) {
  SolveOptions o = solve_options(w, probe, 1, tt_mb);
  SolveTT source(o.tt_bytes);
  SolveOptions first = o;
  first.tt = &source;
  const SolveResult filled = solve_checked(w, first);
  SolveOptions limit = o;
  limit.move_source = &source;
  const SolveResult l = solve_checked(w, limit);
  if (filled.margin != margin || l.margin != margin)
    throw std::logic_error("bench suite: the perfect-order solves of " + w.name +
                           " found another margin");
  return l;
}

// Expansions and distinct positions expanded (by a 64-bit hash of the pits) at each count of
// stones in pits.
struct LevelCounts {
  std::map<int, std::uint64_t> expansions, positions;
};

// One more one-thread solve of w, tracing what it expands.
LevelCounts expanded_by_level(const Workload& w, Probe* probe, long long tt_mb, int margin) {
  std::map<int, std::vector<std::uint64_t>> seen;
  SolveOptions o = solve_options(w, probe, 1, tt_mb);
  o.trace_expanded = [&seen](const Position& p, int, int) {
    seen[p.pit_stones()].push_back(xxh64(p.cell.data(), sizeof(Stones) * (2 * p.m + 2)));
  };
  if (solve_checked(w, o).margin != margin)
    throw std::logic_error("bench suite: the traced solve of " + w.name + " found another margin");
  LevelCounts out;
  for (auto& [n, keys] : seen) {
    out.expansions[n] = keys.size();
    std::sort(keys.begin(), keys.end());
    out.positions[n] = std::uint64_t(std::unique(keys.begin(), keys.end()) - keys.begin());
    std::vector<std::uint64_t>().swap(keys);
  }
  return out;
}

void print_row(const std::string& name, const Run& run) {
  const SolveResult& r = run.r;
  std::printf("%-24s %7d %+6d %15s %15s %15s %15s %9.3f\n", name.c_str(), run.threads, r.margin,
              with_commas(r.nodes).c_str(), with_commas(r.expanded).c_str(),
              with_commas(r.oracle_hits).c_str(), with_commas(r.tt_cutoffs).c_str(), r.seconds);
  std::fflush(stdout);
}

// The baseline's one-thread figures of each workload: expanded, seconds, perfect-order limit.
struct BaseFigures {
  std::uint64_t expanded = 0;
  double seconds = 0;
  std::optional<std::uint64_t> limit;
};

std::map<std::string, BaseFigures> read_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--baseline " + path + ": cannot read it");
  Json j;
  try {
    j = Json::parse(in);
    std::map<std::string, BaseFigures> out;
    for (const Json& w : j.at("workloads")) {
      if (!w.at("skipped").is_null()) continue;
      for (const Json& run : w.at("runs")) {
        if (run.at("threads").get<int>() != 1) continue;
        BaseFigures& b = out[w.at("name").get<std::string>()];
        b.expanded = run.at("expanded").get<std::uint64_t>();
        b.seconds = run.at("seconds").get<double>();
        if (w.contains("perfect_order"))
          b.limit = w.at("perfect_order").at("expanded").get<std::uint64_t>();
      }
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--baseline " + path + ": not a bench suite --json file (" + e.what() + ")");
  }
}

// The line comparing w's one-thread run with the baseline's.
void print_against_baseline(const BaseFigures& base, const SolveResult& now,
                            const std::optional<SolveResult>& limit, Json& out) {
  const std::optional<std::uint64_t> lim =
      limit ? std::optional<std::uint64_t>(limit->expanded) : base.limit;
  const double expanded = double(now.expanded) / double(std::max<std::uint64_t>(base.expanded, 1));
  const double seconds = base.seconds > 0 ? now.seconds / base.seconds : 0.0;
  std::printf("  against the baseline: expanded %.3fx, time %.3fx", expanded, seconds);
  out = {{"expanded_ratio", expanded}, {"seconds_ratio", seconds}};
  if (lim && base.expanded > *lim) {
    const double closed =
        (double(base.expanded) - double(now.expanded)) / (double(base.expanded) - double(*lim));
    std::printf(", gap to the limit closed %.1f%%", 100 * closed);
    out["gap_closed"] = closed;
  }
  std::printf("\n");
}

// The suite's workloads, or --only's; InputError for a name not in it.
std::vector<Workload> chosen_workloads(const std::vector<std::string>& only) {
  std::vector<Workload> workloads = suite_workloads();
  if (only.empty()) return workloads;
  for (const std::string& name : only)
    if (std::none_of(workloads.begin(), workloads.end(),
                     [&](const Workload& w) { return w.name == name; }))
      throw InputError("--only " + name + ": no such workload (bench suite --list)");
  std::erase_if(workloads, [&](const Workload& w) {
    return std::find(only.begin(), only.end(), w.name) == only.end();
  });
  return workloads;
}

// The --levels line of a workload and its JSON.
Json print_levels(const LevelCounts& levels) {
  std::printf("  expanded by stones in pits (expansions/positions):");
  Json out = Json::array();
  for (const auto& [n, e] : levels.expansions) {
    const std::uint64_t distinct = levels.positions.at(n);
    std::printf(" %d: %s/%s", n, with_commas(e).c_str(), with_commas(distinct).c_str());
    out.push_back({{"stones", n}, {"expansions", e}, {"positions", distinct}});
  }
  std::printf("\n");
  return out;
}

// What the suite keeps across its workloads.
struct SuiteRun {
  const SuiteArgs& a;
  Tables tables;
  std::map<std::string, BaseFigures> baseline;
  std::map<std::string, std::uint64_t> one_thread_nodes;  // by workload: the signature's terms
};

// Runs w as asked (or reports it skipped) and returns its JSON.
Json run_workload(SuiteRun& suite, const Workload& w) {
  const SuiteArgs& a = suite.a;
  Json wj = {
      {"name", w.name},   {"rules", rules_name(w.rules)}, {"position", to_string(w.position)},
      {"table", w.table}, {"every_move", w.every_move},   {"skipped", nullptr}};
  std::string why;
  double load_s = 0;
  Probe* probe = nullptr;
  if (w.table >= 0 && (probe = suite.tables.probe_for(w, &why, &load_s)) == nullptr) {
    std::printf("%-24s skipped: %s\n", w.name.c_str(), why.c_str());
    wj["skipped"] = why;
    return wj;
  }
  if (load_s > 0)
    std::printf("  (%s loaded into memory in %.2f s)\n", table_text(w).c_str(), load_s);
  Json runs = Json::array();
  std::optional<SolveResult> first, one_thread;
  for (const int threads : a.threads) {
    SolveOptions o = solve_options(w, probe, threads, a.tt_mb);
    o.best_first_plies = a.best_first;
    const Run run{threads, solve_checked(w, o)};
    if (first && run.r.margin != first->margin)
      throw std::logic_error("bench suite: " + w.name + " found two margins");
    if (!first) first = run.r;
    if (threads == 1) {
      one_thread = run.r;
      suite.one_thread_nodes[w.name] = run.r.nodes;
    }
    print_row(w.name, run);
    runs.push_back(run_json(run));
  }
  wj["runs"] = runs;
  std::optional<SolveResult> limit;
  if (a.perfect_order) {
    limit = perfect_order_limit(w, probe, a.tt_mb, first->margin);
    const std::uint64_t expanded = (one_thread ? one_thread : first)->expanded;
    std::printf("  perfect order: %s expanded (%s nodes): %.2fx fewer expanded\n",
                with_commas(limit->expanded).c_str(), with_commas(limit->nodes).c_str(),
                limit->expanded > 0 ? double(expanded) / double(limit->expanded) : 0.0);
    wj["perfect_order"] = {{"nodes", limit->nodes}, {"expanded", limit->expanded}};
  }
  if (a.levels)
    wj["expanded_by_stones"] = print_levels(expanded_by_level(w, probe, a.tt_mb, first->margin));
  const auto other = suite.one_thread_nodes.find(w.compare_to);
  if (one_thread && other != suite.one_thread_nodes.end()) {
    const double ratio =
        double(one_thread->nodes) / double(std::max<std::uint64_t>(other->second, 1));
    std::printf("  %.2fx the nodes of %s\n", ratio, w.compare_to.c_str());
    wj["nodes_over_" + w.compare_to] = ratio;
  }
  if (const auto base = suite.baseline.find(w.name); one_thread && base != suite.baseline.end()) {
    Json against;
    print_against_baseline(base->second, *one_thread, limit, against);
    wj["against_baseline"] = against;
  }
  return wj;
}

int bench_suite(int argc, char** argv) {
  SuiteArgs a;
  if (!parse_suite_args(argc, argv, a)) return 0;
  if (a.list) {
    for (const Workload& w : suite_workloads())
      std::printf("%-24s %-20s %-36s %s%s\n", w.name.c_str(),
                  std::string(rules_name(w.rules)).c_str(), to_string(w.position).c_str(),
                  table_text(w).c_str(), w.every_move ? ", every move exact" : "");
    return 0;
  }
  const std::vector<Workload> workloads = chosen_workloads(a.only);
  SuiteRun suite{a,
                 Tables(a.dbs),
                 a.baseline_path.empty() ? std::map<std::string, BaseFigures>{}
                                         : read_baseline(a.baseline_path),
                 {}};
  std::optional<std::ofstream> json_out;
  if (!a.json_path.empty()) {
    json_out.emplace(a.json_path);
    if (!*json_out) throw InputError("--json " + a.json_path + ": cannot write it");
  }

  std::printf("bench suite: %zu workload%s, threads %s, %s TT\n", workloads.size(),
              workloads.size() == 1 ? "" : "s", a.threads_text.c_str(),
              a.tt_mb > 0 ? (std::to_string(a.tt_mb) + " MiB").c_str() : "automatic");
  std::printf("%-24s %7s %6s %15s %15s %15s %15s %9s\n", "workload", "threads", "margin", "nodes",
              "expanded", "table hits", "TT cutoffs", "seconds");
  Json results = Json::array();
  std::size_t ran = 0;
  for (const Workload& w : workloads) {
    results.push_back(run_workload(suite, w));
    ran += results.back()["skipped"].is_null();
  }
  std::uint64_t signature = 0;
  for (const auto& [name, nodes] : suite.one_thread_nodes) signature += nodes;
  std::printf("%zu of %zu workloads run", ran, workloads.size());
  if (std::find(a.threads.begin(), a.threads.end(), 1) != a.threads.end())
    std::printf("; one-thread nodes in all %s (signature)", with_commas(signature).c_str());
  std::printf("\n");
  if (json_out) {
    *json_out << Json{{"threads", a.threads},
                      {"tt_mb", a.tt_mb},
                      {"best_first", a.best_first},
                      {"workloads", results},
                      {"signature", signature}}
                     .dump(1)
              << "\n";
    json_out->close();
    if (!*json_out) throw std::runtime_error("--json " + a.json_path + ": the write failed");
  }
  return 0;
}

const RegisterBenchWorkload reg_suite{
    "suite", "the solver's fixed suite of proofs: nodes by kind, time, against a baseline",
    &bench_suite};

}  // namespace
}  // namespace kalah::cli
