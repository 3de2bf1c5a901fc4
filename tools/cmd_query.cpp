// `kalah query`: exact outcome and margin of a position and of each legal move.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "command.hpp"
#include "db_open.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "query.hpp"

namespace kalah::cli {
namespace {

std::string margin_text(const MarginBound& b) {
  if (!b.exact()) return "between " + std::to_string(b.lower) + " and " + std::to_string(b.upper);
  const int v = b.lower;
  if (v == 0) return "draw";
  return std::string(outcome_name(outcome_of(v))) + " by " + std::to_string(v > 0 ? v : -v);
}

std::string json_margin(const MarginBound& b) {
  std::ostringstream o;
  if (b.exact()) {
    o << "\"margin\":" << b.lower << ",\"outcome\":\"" << outcome_name(outcome_of(b.lower)) << "\"";
  } else {
    o << "\"margin\":null,\"outcome\":"
      << (b.lower > 0                    ? "\"win\""
          : b.upper < 0                  ? "\"loss\""
          : b.lower == 0 && b.upper == 0 ? "\"draw\""
                                         : "null")
      << ",\"lower\":" << b.lower << ",\"upper\":" << b.upper;
  }
  return o.str();
}

void print_text(std::ostream& out, const Position& p, Rules rules, const QueryAnswer& a,
                bool have_db) {
  out << to_string(p) << "  (" << rules_name(rules) << ")\n";
  const char* source = a.used_solver ? (have_db ? "database + search" : "search") : "database";
  if (a.over) {
    out << side_letter(p.mover) << " to move, game over: " << margin_text(a.value)
        << " (final margin " << a.value.lower << ")\n";
    return;
  }
  out << side_letter(p.mover) << " to move: " << margin_text(a.value);
  if (a.value.exact())
    out << " (margin " << a.value.lower << ", exact, " << source << ")\n";
  else
    out << " (time ran out: NOT exact, proven bounds only)\n";
  for (const auto& m : a.moves) {
    out << "  pit " << m.pit << ": " << margin_text(m.value);
    if (m.value.exact()) out << " (margin " << m.value.lower << ")";
    if (m.again) out << ", moves again";
    if (m.best) out << "  <- best";
    out << "\n";
  }
}

void print_json(std::ostream& out, const Position& p, Rules rules, const QueryAnswer& a) {
  out << "{\"position\":\"" << to_string(p) << "\",\"rules\":\"" << rules_name(rules) << "\","
      << json_margin(a.value) << ",\"exact\":" << (a.value.exact() ? "true" : "false")
      << ",\"over\":" << (a.over ? "true" : "false") << ",\"moves\":[";
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    const auto& m = a.moves[i];
    out << (i ? "," : "") << "{\"pit\":" << m.pit << "," << json_margin(m.value)
        << ",\"exact\":" << (m.value.exact() ? "true" : "false")
        << ",\"best\":" << (m.best ? "true" : "false")
        << ",\"again\":" << (m.again ? "true" : "false") << "}";
  }
  out << "]}\n";
}

// --db-load auto: positions this many stones in pits beyond the table get it resident.
constexpr int kResidentBeyond = 8;

int run_query(int argc, char** argv) {
  std::string rules_text = "wetherell", db = kDefaultDbPath;
  std::vector<std::string> words;
  bool json = false;
  double max_time = 30;
  DbLoadOptions db_load;
  po::options_description desc("options");
  desc.add_options()("rules", po::value(&rules_text)->default_value(rules_text),
                     rules_option_help().c_str());
  add_db_option(desc, db);
  desc.add_options()("json", po::bool_switch(&json), "one JSON object per position")(
      "max-time", po::value(&max_time)->default_value(max_time),
      "seconds of search allowed per position beyond the database; 0: no limit")(
      "position", po::value(&words), "POSITION, or - to read one position per line from stdin");
  db_load.add_to(desc,
                 "the LRU block cache, and the whole table decoded into memory (once) before the "
                 "first search of a position 8 or more stones in pits beyond it, when it fits "
                 "--cache-mb");
  add_progress_options(desc);
  po::positional_options_description pos;
  pos.add("position", -1);
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "query POSITION|- [--rules R] [--db PATH] [--json] [--max-time SEC] [--cache-mb MB] "
          "[--db-load auto|memory|cache] [--db-max-stones N] [--progress | --quiet]",
          "Prints the outcome (win/draw/loss for the side to move) and exact margin of a\n"
          "position, and the margin of every legal move, best moves marked. Values come from\n"
          "the database at --db (default " +
              std::string(kDefaultDbPath) +
              " when it exists; without one, from search alone);\n"
              "positions beyond it are solved by exhaustive search on all cores (with the\n"
              "database at the leaves) for at most --max-time seconds per position: when the\n"
              "time runs out the answer says so and shows proven bounds, never a guess.\n"
              "POSITION may be given as one argument or as two (board, side). With -, reads one\n"
              "position per line; a bad line is reported on stderr, the others are answered,\n"
              "and the exit code is 2.\n"
              "JSON keys: position, rules, margin, outcome, exact, over, moves[{pit, margin,\n"
              "outcome, exact, best, again}]; a bounded margin is null with lower and upper.",
          desc, pos, vm))
    return 0;
  const Rules rules = parse_rules_option(rules_text);
  if (!(max_time >= 0)) throw InputError("--max-time must be >= 0");
  const DbLoad load = db_load.parsed();
  const std::size_t cache_bytes = db_load.cache_bytes();
  const bool explicit_db = !vm["db"].defaulted();
  if (words.empty()) throw InputError("a POSITION (or - for stdin) is required");
  Progress progress(progress_wanted(vm));

  std::vector<std::string> lines;
  const bool batch = words.size() == 1 && words[0] == "-";
  if (batch) {
    std::string line;
    while (std::getline(std::cin, line))
      if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  } else if (words.size() <= 2) {
    lines.push_back(words.size() == 2 ? words[0] + " " + words[1] : words[0]);
  } else {
    throw InputError("expected one POSITION (\"BOARD SIDE\"), got " + std::to_string(words.size()) +
                     " arguments");
  }

  std::map<int, OpenedDb> dbs;  // per board size
  std::set<int> told;           // board sizes whose table's loading the user was told of
  int status = 0;
  for (const std::string& line : lines) {
    Position p;
    try {
      p = parse_position(line);
    } catch (const InputError& e) {
      if (!batch) throw;
      std::cerr << "kalah query: error: " << e.what() << "\n";
      status = 2;
      continue;
    }
    auto it = dbs.find(p.m);
    if (it == dbs.end())
      it = dbs.emplace(p.m,
                       open_db_for(db, explicit_db, {rules, p.m}, cache_bytes,
                                   load == DbLoad::kMemory ? load : DbLoad::kCache, db_load.levels))
               .first;
    OpenedDb& opened = it->second;
    // A search far beyond the table reads most of its blocks (a 6x4 start: 18,697 of 19,114):
    // decoding them all once is faster than reading them one by one through the cache.
    if (load == DbLoad::kAuto && opened.probe && !opened.probe->resident() && !told.count(p.m) &&
        p.pit_stones() >= opened.probe->max_stones() + kResidentBeyond) {
      const std::uint64_t need = Probe::resident_bytes(*opened.store, {rules, p.m}, db_load.levels);
      told.insert(p.m);
      if (need <= cache_bytes) {
        progress.status("loading the database at " + db + " into memory");
        opened.probe = std::make_unique<Probe>(*opened.store, TableId{rules, p.m}, 0,
                                               ProbeLoad::kResident, 0, db_load.levels);
      }
      progress.note("the " + std::to_string(p.m) + "-pit table is " +
                    (need <= cache_bytes ? "loaded into memory ("
                                         : "read through a block cache (decoded it needs ") +
                    std::to_string(need >> 20) + " MiB; --cache-mb " +
                    std::to_string(cache_bytes >> 20) + ")");
    }
    ExactOracle* oracle = opened.probe.get();
    const QueryAnswer a =
        query_position(rules, p, oracle, max_time, threads_or_all_cores(0), progress.status_sink());
    progress.clear_line();
    if (json)
      print_json(std::cout, p, rules, a);
    else
      print_text(std::cout, p, rules, a, oracle != nullptr);
    std::cout.flush();
  }
  return status;
}

const RegisterCommand reg{"query", "exact outcome and margin of a position and of each move",
                          &run_query};

}  // namespace
}  // namespace kalah::cli
