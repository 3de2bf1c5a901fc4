// `kalah bench query`: every move of a start position proven, beside `kalah solve`, and a game
// walked one query after another through one TT, cold and after a load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "db/xxhash64.hpp"
#include "engine/move.hpp"
#include "engine/record_lines.hpp"
#include "engine/stopwatch.hpp"
#include "solver/answers/query.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

// The start of a table's game: its rule set's kStartStones a pit (the etude's 3, Kalah(m,4)).
Position bench_start(const TableId& t) {
  return start_position(t.m, start_stones(t.rules));
}

// "pit:margin ..." of an answer, every value exact.
std::string values_text(const QueryAnswer& a) {
  std::string out;
  for (const MoveAnswer& m : a.moves) {
    if (!out.empty()) out += ' ';
    out += std::to_string(m.pit) + ":" +
           (m.value.exact() ? std::to_string(m.value.lower)
                            : std::to_string(m.value.lower) + ".." + std::to_string(m.value.upper));
  }
  return out;
}

bool settled(const QueryAnswer& a) {
  return a.value.exact() && std::all_of(a.moves.begin(), a.moves.end(),
                                        [](const MoveAnswer& m) { return m.value.exact(); });
}

struct Timed {
  double seconds = 0;
  std::uint64_t nodes = 0;
};

// `kalah solve`'s work on p: the margin, the best moves and the PV, a TT of its own.
Timed solve_once(Rules rules, const Position& p, Probe& probe, int threads) {
  SolveOptions opt;
  opt.oracle = &probe;
  opt.threads = threads;
  opt.tt_bytes = auto_tt_bytes(rules, p, &probe);
  const SolveResult r = solve(rules, p, opt);
  if (!r.complete) throw std::runtime_error("bench query: the solve did not complete");
  return {r.seconds, r.nodes};
}

// What the command line asked for, checked.
struct QueryBenchArgs {
  std::string db_path = kDefaultDbPath, rules_text = "all";
  int threads = 0, plies = 20, runs = 1, load = 0, load_lo = 4, load_hi = 8;
  int best_first = -1;         // QuerySearchOptions::best_first_plies
  std::string positions_path;  // --positions: these positions instead of the starts and walk
  long long tt_mb = serve_tt_mb();
  bool aging = true;
};

// One query of p with every move exact; tt: kept between queries (its search a generation of
// its own, as libkalah's analysis cache), or null for a fresh one.
QueryAnswer query_once(const QueryBenchArgs& a, Rules rules, const Position& p, Probe& probe,
                       SolveTT* tt) {
  QuerySearchOptions o;
  o.threads = a.threads;
  o.best_first_plies = a.best_first;
  if (tt != nullptr)
    o.tt = [tt] {
      tt->new_generation();
      return tt;
    };
  QueryAnswer answer = query_position(rules, p, &probe, o);
  if (!settled(answer)) throw std::runtime_error("bench query: a query did not settle every move");
  return answer;
}

const char* const kQueryBenchDescription =
    "For each 6-pit table of the database (in memory): the start of its game (3 stones a\n"
    "pit under wetherell, 4 under the kalah rule sets) solved as kalah solve does (margin,\n"
    "best moves, PV) and queried as kalah query does (every move exact), each with a\n"
    "transposition table of its own, alternated --runs times; then a game walked from\n"
    "the start, lowest best move each ply, every position queried in turn through one\n"
    "transposition table of --tt-mb kept for the walk (kalah serve's analysis cache,\n"
    "aging). With --load N the walk again, through a transposition table that first\n"
    "answered N positions beyond the table\n"
    "(--load-beyond), each a generation; its answers must be the cold walk's.\n"
    "--best-first P queries with a best-first top of P plies (0: depth-first throughout);\n"
    "by default as kalah query does (a top in each test one thread runs by itself).\n"
    "With --positions FILE (and one --rules), each position of FILE (one a line in the\n"
    "notation; blank lines and lines from # on skipped) is queried instead, as kalah query\n"
    "queries it (an analysis cache of its own, sized to it): its nodes and time, and their\n"
    "totals.\n"
    "Prints times, nodes and the ratios; the signature is the XXH64 of every answer's\n"
    "values, the same on every run.";

// Parses and checks the command line; false when --help was answered.
bool parse_query_bench_args(int argc, char** argv, QueryBenchArgs& a) {
  std::string load_beyond = "4-8";
  bool no_aging = false;
  po::options_description desc("options");
  add_db_option(desc, a.db_path);
  desc.add_options()(
      "rules", po::value(&a.rules_text)->default_value(a.rules_text),
      ("the table's rule set: " + rules_names() + ", or all (every 6-pit table)").c_str())(
      "threads", po::value(&a.threads)->default_value(a.threads), "search threads, 0: all cores")(
      "plies", po::value(&a.plies)->default_value(a.plies), "plies of the walked game, 0..200")(
      "best-first", po::value(&a.best_first)->default_value(a.best_first),
      ("the queries' best-first top in plies, 0..64; 0: depth-first; -1: as kalah query's (" +
       std::to_string(kAnalysisBestFirstPlies) + " on one thread)")
          .c_str())(
      "positions", po::value(&a.positions_path),
      "query the positions of this file (one a line) instead of the starts and the walk")(
      "runs", po::value(&a.runs)->default_value(a.runs),
      "solves and queries of each start, alternated (1..20)")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "the walk's transposition table in MiB (by default kalah serve's analysis cache)")(
      "load", po::value(&a.load)->default_value(a.load),
      "walk again after this many positions beyond the table (fixed seed, kalahs empty) were "
      "queried through the walk's transposition table, each a generation of its own (0..100000; 0: "
      "no load)")("load-beyond", po::value(&load_beyond)->default_value(load_beyond),
                  "the loaded positions' stones in pits beyond the table: N or LO-HI")(
      "no-aging", po::bool_switch(&no_aging),
      "the walks' TTs replace by work alone, without generations (as before libkalah's cache "
      "aged)");
  po::variables_map vm;
  if (!parse_command(argc, argv,
                     "bench query [--db PATH] [--rules R] [--threads N] [--plies P] [--runs N] "
                     "[--best-first P] [--positions FILE] [--tt-mb MB] [--load N] [--load-beyond "
                     "LO-HI] [--no-aging]",
                     kQueryBenchDescription, desc, {}, vm))
    return false;
  check_range("threads", a.threads, 0, 256);
  check_range("plies", a.plies, 0, 200);
  check_range("runs", a.runs, 1, 20);
  check_range("best-first", a.best_first, -1, 64);
  check_range("load", a.load, 0, 100'000);
  std::tie(a.load_lo, a.load_hi) = parse_beyond("load-beyond", load_beyond);
  a.aging = !no_aging;
  check_cache_mb("tt-mb", a.tt_mb, 1, 1 << 20);
  a.threads = threads_or_all_cores(a.threads);
  if (!a.positions_path.empty() && a.rules_text == "all")
    throw InputError("--positions needs --rules: the rule set its positions are played under");
  return true;
}

// The start solved and queried, alternated a.runs times; the first query's values signed.
void bench_start_position(const QueryBenchArgs& a, Rules rules, const Position& start, Probe& probe,
                          Xxh64Stream& signature) {
  Timed solved, queried;
  for (int run = 0; run < a.runs; ++run) {
    const Timed s = solve_once(rules, start, probe, a.threads);
    const QueryAnswer q = query_once(a, rules, start, probe, nullptr);
    std::printf("  run %d: solve %.3f s %llu nodes; query (every move) %.3f s %llu nodes: %s\n",
                run + 1, s.seconds, static_cast<unsigned long long>(s.nodes), q.seconds,
                static_cast<unsigned long long>(q.nodes), values_text(q).c_str());
    solved.seconds += s.seconds;
    queried.seconds += q.seconds;
    if (run == 0) {
      const std::string v = values_text(q);
      signature.update(v.data(), v.size());
    }
  }
  std::printf("  every move exact in %.3f s, %.2fx the solve's %.3f s\n", queried.seconds / a.runs,
              queried.seconds / solved.seconds, solved.seconds / a.runs);
}

// A game walked from the start, lowest best move each ply, each position queried through `tt`.
struct Walk {
  int asked = 0;
  double first = 0, seconds = 0;
  std::uint64_t nodes = 0;
  std::string values;  // each position and its answer's values, one after another
};

// The walk from `start` through `tt`, each position a query (a generation) of its own.
Walk walk(const QueryBenchArgs& a, Rules rules, const Position& start, Probe& probe, SolveTT& tt) {
  Walk w;
  Position p = start;
  for (int ply = 0; ply <= a.plies && !is_over(rules, p); ++ply, ++w.asked) {
    const auto at = std::chrono::steady_clock::now();
    const QueryAnswer q = query_once(a, rules, p, probe, &tt);
    const double s = seconds_since(at);
    if (ply == 0) w.first = s;
    w.seconds += s;
    w.nodes += q.nodes;
    w.values += to_string(p) + " " + values_text(q);
    const auto best =
        std::find_if(q.moves.begin(), q.moves.end(), [](const MoveAnswer& m) { return m.best; });
    play_move(rules, p, best->pit);
  }
  return w;
}

// a.load positions of an m-pit board beyond the table queried through `tt`, each answer signed;
// prints the load.
void load(const QueryBenchArgs& a, Rules rules, int m, Probe& probe, SolveTT& tt,
          Xxh64Stream& signature) {
  const int lo = probe.max_stones() + a.load_lo, hi = probe.max_stones() + a.load_hi;
  const auto at = std::chrono::steady_clock::now();
  std::uint64_t nodes = 0;
  const std::vector<Position> positions = random_positions(rules, m, lo, hi, a.load);
  for (const Position& p : positions) {
    const QueryAnswer q = query_once(a, rules, p, probe, &tt);
    nodes += q.nodes;
    const std::string v = to_string(p) + " " + values_text(q);
    signature.update(v.data(), v.size());
  }
  std::printf("  load of %zu positions with %d..%d stones in pits: %.3f s, %llu nodes\n",
              positions.size(), lo, hi, seconds_since(at), static_cast<unsigned long long>(nodes));
}

// The walk through a fresh TT, and with --load through one loaded first; every answer signed.
void bench_walk(const QueryBenchArgs& a, Rules rules, const Position& start, Probe& probe,
                Xxh64Stream& signature) {
  const auto aging = a.aging ? SolveTT::Aging::kOn : SolveTT::Aging::kOff;
  const std::size_t bytes = std::size_t(a.tt_mb) << 20;
  const Walk cold = [&] {
    SolveTT tt(bytes, aging);
    return walk(a, rules, start, probe, tt);
  }();
  signature.update(cold.values.data(), cold.values.size());
  std::printf(
      "  walk of %d positions, one TT of %zu MiB%s: first %.3f s, all %.3f s (%.2fx the "
      "first), %llu nodes\n",
      cold.asked, SolveTT::bytes_for(bytes) >> 20, a.aging ? " (aging)" : " (no aging)", cold.first,
      cold.seconds, cold.seconds / std::max(cold.first, 1e-9),
      static_cast<unsigned long long>(cold.nodes));
  if (a.load == 0) return;
  SolveTT tt(bytes, aging);
  load(a, rules, start.m, probe, tt, signature);
  const Walk loaded = walk(a, rules, start, probe, tt);
  if (loaded.values != cold.values)
    throw std::runtime_error("bench query: the walk after the load answered otherwise");
  std::printf(
      "  the walk after the load: first %.3f s, all %.3f s (%.2fx the cold walk), %llu "
      "nodes (%.2fx)\n",
      loaded.first, loaded.seconds, loaded.seconds / std::max(cold.seconds, 1e-9),
      static_cast<unsigned long long>(loaded.nodes),
      double(loaded.nodes) / double(std::max<std::uint64_t>(cold.nodes, 1)));
}

// The positions of a --positions file, each a line; throws InputError naming a bad line.
std::vector<Position> read_positions(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--positions " + path + ": cannot be read");
  std::vector<Position> out;
  for_each_record_line(in, [&](const std::string& line, int number) {
    const std::string where = "--positions " + path + " line " + std::to_string(number) + ": ";
    try {
      out.push_back(parse_position(line));
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
    if (out.back().m != 6) throw InputError(where + "not a 6-pit position (the tables read are)");
  });
  if (out.empty()) throw InputError("--positions " + path + ": no position");
  return out;
}

// Each position queried as `kalah query POSITION` queries it, through an analysis cache of its
// own sized to it (aging): nodes and time, and the totals; every answer signed.
void bench_positions(const QueryBenchArgs& a, Rules rules, const std::vector<Position>& positions,
                     Probe& probe, Xxh64Stream& signature) {
  double seconds = 0;
  std::uint64_t nodes = 0;
  for (const Position& p : positions) {
    SolveTT tt(auto_tt_bytes(rules, p, &probe), SolveTT::Aging::kOn);
    const QueryAnswer q = query_once(a, rules, p, probe, &tt);
    std::printf("  %s: %.3f s, %llu nodes: %s\n", to_string(p).c_str(), q.seconds,
                static_cast<unsigned long long>(q.nodes), values_text(q).c_str());
    seconds += q.seconds;
    nodes += q.nodes;
    const std::string v = to_string(p) + " " + values_text(q);
    signature.update(v.data(), v.size());
  }
  std::printf("  %zu positions: %.3f s, %llu nodes\n", positions.size(), seconds,
              static_cast<unsigned long long>(nodes));
}

int bench_query(int argc, char** argv) {
  QueryBenchArgs a;
  if (!parse_query_bench_args(argc, argv, a)) return 0;
  std::vector<Position> positions;
  if (!a.positions_path.empty()) positions = read_positions(a.positions_path);
  const Store store(a.db_path, false);
  std::vector<TableId> tables;
  for (const TableId& t : store.tables())
    if (t.m == 6 && (a.rules_text == "all" || rules_name(t.rules) == a.rules_text) &&
        store.complete_through(t) >= 0)
      tables.push_back(t);
  if (tables.empty())
    throw InputError("database " + a.db_path + " has no 6-pit table" +
                     (a.rules_text == "all" ? "" : " for " + a.rules_text));
  Xxh64Stream signature;
  for (const TableId& t : tables) {
    const auto load_start = std::chrono::steady_clock::now();
    Probe probe(store, t, 0, TableLoad::kMemory);
    const Position start = bench_start(t);
    std::printf("%s m=6 <= %d (loaded in %.2f s), %d thread%s, start %s\n",
                std::string(rules_name(t.rules)).c_str(), probe.max_stones(),
                seconds_since(load_start), a.threads, a.threads == 1 ? "" : "s",
                to_string(start).c_str());
    if (!positions.empty()) {
      bench_positions(a, t.rules, positions, probe, signature);
      continue;
    }
    bench_start_position(a, t.rules, start, probe, signature);
    bench_walk(a, t.rules, start, probe, signature);
  }
  std::printf("signature: %016llx\n", static_cast<unsigned long long>(signature.digest()));
  return 0;
}

const RegisterBenchWorkload reg{
    "query", "every move exact beside kalah solve, and a game walked through one TT", &bench_query};

}  // namespace
}  // namespace kalah::cli
