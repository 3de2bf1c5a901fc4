// `kalah grade`: every move of games already played, graded against exact values.
#include <fstream>
#include <iostream>

#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/referee/game_record.hpp"
#include "tools/referee/report.hpp"

namespace kalah::cli {
namespace {

const char* const kGradeUsage =
    "grade [FILE|-] --db PATH [--rules R] [--search-time SEC] [--tt-mb MB] [--json]";

const char* const kGradeDescription =
    "Grades every move of games already played, as `kalah referee` grades a bot's:\n"
    "the exact margin of the move against the position's, the margin it gives away\n"
    "and whether it changes the outcome, summed up for each side (South and North),\n"
    "by stones in pits, with each outcome-changing move and the `kalah query` that\n"
    "shows it (the first 20 in the text, all with --json). Games are read from FILE\n"
    "or stdin (-, the default): a game a line as a start and its moves (`POSITION PIT\n"
    "PIT ...`, or `MxK PIT PIT ...` for the start of M pits of K stones, South first),\n"
    "or a position a line (our notation), each reached from the one before by one\n"
    "move, a blank line between games. Positions inside the database's table are\n"
    "graded exactly; beyond it by a search of at most --search-time a position, whose\n"
    "unfinished moves count as unproven.";

struct GradeArgs {
  std::string input = "-";
  std::string db;
  std::string rules = "kalah";
  double search_time = 1;
  int tt_mb = 64;
  bool json = false;
};

// Parses the command line into a; false when --help was printed.
bool parse_grade_args(int argc, char** argv, GradeArgs& a) {
  po::options_description desc("options");
  add_db_option(desc, a.db);
  desc.add_options()("input", po::value(&a.input)->default_value(a.input),
                     "FILE of games, - for stdin")(
      "rules", po::value(&a.rules)->default_value(a.rules), rules_option_help().c_str())(
      "search-time", po::value(&a.search_time)->default_value(a.search_time),
      "seconds of search to grade a position beyond the table, 0.01..3600")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "the solver's table in MiB, allocated at the first search")(
      "json", po::bool_switch(&a.json), "one JSON object: every game's moves and each side's");
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  return parse_command(argc, argv, kGradeUsage, kGradeDescription, desc, pos, vm);
}

// The games of --input (a file, or - for stdin).
std::vector<referee::GameRecord> read_grade_input(const std::string& input, Rules rules) {
  if (input == "-") return referee::read_games(std::cin, rules);
  std::ifstream in(input);
  if (!in) throw InputError("cannot read " + input);
  return referee::read_games(in, rules);
}

}  // namespace

int run_grade(int argc, char** argv) {
  GradeArgs a;
  if (!parse_grade_args(argc, argv, a)) return 0;
  const Rules rules = parse_rules_name(a.rules);
  check_seconds("search-time", a.search_time);
  check_memory_mb("tt-mb", a.tt_mb, 1, 65536);
  const std::vector<referee::GameRecord> games = read_grade_input(a.input, rules);
  require_db(a.db);
  referee::Tables tables(a.db, rules);
  referee::Grader grader(tables, a.search_time, std::size_t(a.tt_mb) << 20);

  std::vector<referee::MoveGrade> by_side[2];  // South's, North's
  nlohmann::json games_json = nlohmann::json::array();
  for (std::size_t i = 0; i < games.size(); ++i) {
    const referee::GameRecord& g = games[i];
    std::vector<referee::MoveGrade> moves;
    for (std::size_t k = 0; k < g.pits.size(); ++k) {
      moves.push_back(grader.grade(g.positions[k], g.pits[k]));
      by_side[g.positions[k].mover == Side::kSouth ? 0 : 1].push_back(moves.back());
    }
    if (a.json) {
      nlohmann::json j = referee::moves_json(moves);
      j["line"] = g.line;
      games_json.push_back(j);
    } else {
      const referee::MoveSummary s = referee::summarize(moves);
      std::printf("game %zu (line %d): %d moves, %d proven, %d best, %d change the outcome\n",
                  i + 1, g.line, s.states, s.proven, s.best, s.blunders);
    }
  }
  if (a.json) {
    std::cout << nlohmann::json{{"games", games_json},
                                {"south", referee::moves_json(by_side[0])},
                                {"north", referee::moves_json(by_side[1])}}
                     .dump()
              << "\n";
    return 0;
  }
  for (int side = 0; side < 2; ++side) {
    std::printf("%s:\n", side == 0 ? "South" : "North");
    std::fputs(referee::moves_text(by_side[side], a.db, rules, "  ").c_str(), stdout);
  }
  return 0;
}

namespace {
const RegisterCommand reg{"grade", "grade every move of games already played against exact values",
                          &run_grade};
}  // namespace
}  // namespace kalah::cli
