// `kalah query`: exact outcome and margin of a position and of each legal move.
#include <iostream>
#include <set>
#include <string>

#include "db/db_error.hpp"
#include "kalah/kalah.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"

namespace kalah::cli {
namespace {

std::string margin_text(const api::Value& v) {
  if (!v.exact()) return "between " + std::to_string(v.lower) + " and " + std::to_string(v.upper);
  if (v.lower == 0) return "draw";
  return v.outcome() + " by " + std::to_string(v.lower > 0 ? v.lower : -v.lower);
}

void print_text(std::ostream& out, const api::Answer& a) {
  const char mover = a.position.back();
  out << a.position << "  (" << a.rules << ")\n";
  if (a.over) {
    out << mover << " to move, game over: " << margin_text(a.value) << " (final margin "
        << a.value.lower << ")\n";
    return;
  }
  out << mover << " to move: " << margin_text(a.value);
  if (a.value.exact())
    out << " (margin " << a.value.lower << ", exact, " << a.source << ")\n";
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

// What the command line asked for, checked.
struct QueryArgs {
  std::string rules_text = "wetherell";
  Rules rules = Rules::kWetherell;
  std::string db = kDefaultDbPath;
  bool explicit_db = false;
  std::vector<std::string> words;  // POSITION, or "-"
  bool json = false;
  double max_time = 30;
  int threads = 0;
  long long tt_mb = 0;
  DbLoadOptions db_load;
  bool progress = false;
};

const char* const kQueryUsage =
    "query POSITION|- [--rules R] [--db PATH] [--json] [--max-time SEC] [--threads N] "
    "[--tt-mb MB] [--cache-mb MB] "
    "[--db-load auto|memory|cache] [--db-max-stones N] [--progress | --quiet]";

std::string query_description() {
  return "Prints the outcome (win/draw/loss for the side to move) and exact margin of a\n"
         "position, and the margin of every legal move, best moves marked. Values come from\n"
         "the database at --db (default " +
         std::string(kDefaultDbPath) +
         " when it exists; without one, from search alone);\n"
         "beyond it one exhaustive search per position (the database at its leaves)\n"
         "proves the value and the best moves as kalah solve does, then every other\n"
         "move's margin, for at most --max-time seconds: when the time runs out the answer\n"
         "says so and shows the bounds proven, never a guess.\n"
         "POSITION may be given as one argument or as two (board, side). With -, reads one\n"
         "position per line; a bad line is reported on stderr, the others are answered,\n"
         "and the exit code is 2.\n"
         "JSON keys: position, rules, margin, outcome, exact, over, source, moves[{pit,\n"
         "margin, outcome, exact, best, again, position, explain}]; a bounded margin is\n"
         "null with lower and upper (libkalah's Answer::to_json, kalah/kalah.hpp).";
}

// Parses and checks the command line; false when --help was answered.
bool parse_query_args(int argc, char** argv, QueryArgs& a) {
  po::options_description desc("options");
  desc.add_options()("rules", po::value(&a.rules_text)->default_value(a.rules_text),
                     rules_option_help().c_str());
  add_db_option(desc, a.db);
  desc.add_options()("json", po::bool_switch(&a.json), "one JSON object per position")(
      "max-time", po::value(&a.max_time)->default_value(a.max_time),
      "seconds of search allowed per position beyond the database; 0: no limit")(
      "threads", po::value(&a.threads)->default_value(a.threads), "search threads, 0: all cores")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "the transposition table in MiB, kept from one position to the next (a later position "
      "reuses what earlier ones proved); 0: sized to the first position searched, as kalah solve "
      "--tt-mb 0 sizes it")("position", po::value(&a.words),
                            "POSITION, or - to read one position per line from stdin");
  a.db_load.add_to(desc);
  add_progress_options(desc);
  po::positional_options_description pos;
  pos.add("position", -1);
  po::variables_map vm;
  if (!parse_command(argc, argv, kQueryUsage, query_description(), desc, pos, vm)) return false;
  a.rules = parse_rules_name(a.rules_text);
  if (!(a.max_time >= 0)) throw InputError("--max-time must be >= 0");
  check_range("threads", a.threads, 0, 256);
  a.threads = threads_or_all_cores(a.threads);
  check_cache_mb("tt-mb", a.tt_mb, 0, 1 << 20);
  a.db_load.parsed();  // bad options are refused before stdin is read
  a.explicit_db = !vm["db"].defaulted();
  if (a.words.empty()) throw InputError("a POSITION (or - for stdin) is required");
  if (a.words.size() > 2)
    throw InputError("expected one POSITION (\"BOARD SIDE\"), got " +
                     std::to_string(a.words.size()) + " arguments");
  a.progress = progress_wanted(vm);
  return true;
}

// The positions asked: one from the arguments, or one a line of stdin.
std::vector<std::string> query_lines(const QueryArgs& a) {
  if (a.words.size() == 2) return {a.words[0] + " " + a.words[1]};
  if (a.words[0] != "-") return {a.words[0]};
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(std::cin, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  return lines;
}

// Says once per board size that the database has no table for it (an error with --db).
class MissingTables {
 public:
  MissingTables(const QueryArgs& a, const api::Database& database, Progress& progress)
      : a_(a), database_(database), progress_(progress) {}
  void check(int m) {
    if (database_.path().empty() || database_.table(a_.rules_text, m) || told_.count(m)) return;
    std::vector<TableId> held;
    for (const api::Table& t : database_.tables())
      held.push_back({parse_rules_name(t.rules), t.pits});
    const std::string msg = no_table_message(a_.db, {a_.rules, m}, held);
    if (a_.explicit_db) throw DbError(msg);
    progress_.note(msg + "; solving by search alone");
    told_.insert(m);
  }

 private:
  const QueryArgs& a_;
  const api::Database& database_;
  Progress& progress_;
  std::set<int> told_;  // board sizes without a table, the user told so
};

int run_query(int argc, char** argv) {
  QueryArgs a;
  if (!parse_query_args(argc, argv, a)) return 0;
  Progress progress(a.progress);
  const bool batch = a.words.size() == 1 && a.words[0] == "-";
  const std::vector<std::string> lines = query_lines(a);
  const std::size_t tt_bytes = std::size_t(a.tt_mb) << 20;  // allocated here when not 0
  const api::Database database = allocate_tt("tt-mb", tt_bytes, [&] {
    return open_api_database(a.db, a.explicit_db, a.db_load, tt_bytes,
                             [&](const std::string& line) { progress.note(line); });
  });
  MissingTables missing(a, database, progress);
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
    missing.check(p.m);
    // The first search allocates the table: of --tt-mb, or with 0 sized to its position.
    const api::Answer answer = allocate_tt("tt-mb", tt_bytes, [&] {
      return database.query(a.rules_text, to_string(p), a.max_time, a.threads,
                            progress.status_sink());
    });
    progress.clear_line();
    if (a.json)
      std::cout << answer.to_json() << "\n";
    else
      print_text(std::cout, answer);
    std::cout.flush();
  }
  return status;
}

const RegisterCommand reg{"query", "exact outcome and margin of a position and of each move",
                          &run_query};

}  // namespace
}  // namespace kalah::cli
