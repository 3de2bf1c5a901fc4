// `kalah referee`: a KGP server that grades the bots connecting to it against exact values.
#include <fstream>

#include "db/db_error.hpp"
#include "tools/cli/bench/bench.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/referee/referee_server.hpp"

namespace kalah::cli {
namespace {

const char* const kRefereeUsage =
    "referee --db PATH [--port N] [--host ADDR] [--pits M] [--positions N] "
    "[--stones-in-pits A-B] [--positions-file FILE] [--games N] [--stones K] [--seed S] "
    "[--move-time SEC] [--search-time SEC] [--tt-mb MB] [--sessions N] [--max-sessions N] [--json] "
    "[--report FILE]";

const char* const kRefereeDescription =
    "Serves the Kalah Game Protocol (KGP 1) as go-kgp does, and grades every bot that\n"
    "connects against the database's exact values of the kalah rule set (KGP's game,\n"
    "docs/RULES.md). The bot asks for a mode: freeplay (it gets `state`s and answers\n"
    "`move`s; the last move before `yield` or the move time counts, and is graded\n"
    "against the best move: the margin it gives away and whether it changes the\n"
    "outcome), eval (it answers `eval` with a number for each state; its numbers are\n"
    "ranked against the exact margins: Kendall's tau-b and Spearman's rho) or verify\n"
    "(it gets `problem BOARD PIT` and answers `solution BOARD REPEAT`; each answer is\n"
    "checked against the rules). The positions are drawn inside the table (--positions,\n"
    "--stones-in-pits, --seed; the same for every session), read from --positions-file,\n"
    "or those of --games games the referee plays against the bot (the best move where\n"
    "the table answers, the engine beyond). A position beyond the table is graded by a\n"
    "search of at most --search-time, and its moves count as unproven when it does not\n"
    "finish. When a session ends (the bot's goodbye, a disconnection, the positions\n"
    "used up) its report is printed on stdout and appended to --report. Many bots may\n"
    "connect at once; a bot's garbage, silence or disconnection ends only its own\n"
    "session. SIGINT or SIGTERM ends every session with its report. See docs/REFEREE.md.";

struct RefereeArgs {
  std::string db;
  int port = 2671;
  int pits = 6;
  int positions = 100;
  std::string stones_in_pits;
  std::string positions_file;
  int games = 0;
  int stones = 4;
  long long seed = 1;
  int tt_mb = 64;
  referee::RefereeOptions o;
};

void add_referee_options(po::options_description& desc, RefereeArgs& a) {
  referee::RefereeOptions& o = a.o;
  add_db_option(desc, a.db);
  desc.add_options()("port", po::value(&a.port)->default_value(a.port),
                     "TCP port, 0: a free one (printed)")(
      "host", po::value(&o.host)->default_value(o.host), "the address to listen on")(
      "pits", po::value(&a.pits)->default_value(a.pits),
      "pits a side of the positions drawn and the games played")(
      "positions", po::value(&a.positions)->default_value(a.positions),
      "positions drawn inside the table for each session, 1..1000000")(
      "stones-in-pits", po::value(&a.stones_in_pits),
      "A-B or N: stones in pits of the positions drawn, 2 or more (default 2 to the table's "
      "levels)")("positions-file", po::value(&a.positions_file),
                 "send these positions instead, one a line (our notation or KGP boards)")(
      "games", po::value(&a.games)->default_value(a.games),
      "send the positions of this many games the referee plays against the bot")(
      "stones", po::value(&a.stones)->default_value(a.stones),
      "stones a pit at the games' start; the positions drawn share out 2 x pits x stones")(
      "seed", po::value(&a.seed)->default_value(a.seed), "the positions' and problems' seed")(
      "move-time", po::value(&o.move_time)->default_value(o.move_time),
      "seconds the bot has for each state or problem, 0.01..3600")(
      "search-time", po::value(&o.search_seconds)->default_value(o.search_seconds),
      "seconds of search to grade a position beyond the table, 0.01..3600")(
      "tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
      "each session's solver table in MiB, allocated at its first search")(
      "sessions", po::value(&o.sessions)->default_value(o.sessions),
      "exit after this many sessions have ended; 0: run until SIGINT or SIGTERM")(
      "max-sessions", po::value(&o.max_sessions)->default_value(o.max_sessions),
      "sessions at once; later connections get an error")(
      "json", po::bool_switch(&o.json), "each report as one JSON object on a line")(
      "report", po::value(&o.report_file), "append each report to this file too");
}

// Parses and checks the command line into a; false when --help was answered.
bool parse_referee_args(int argc, char** argv, RefereeArgs& a, po::variables_map& vm) {
  po::options_description desc("options");
  add_referee_options(desc, a);
  if (!parse_command(argc, argv, kRefereeUsage, kRefereeDescription, desc, {}, vm)) return false;
  referee::RefereeOptions& o = a.o;
  check_range("port", a.port, 0, 65535);
  check_range("pits", a.pits, 1, 12);
  check_range("positions", a.positions, 1, 1000000);
  check_range("games", a.games, 0, 1000000);
  check_range("stones", a.stones, 1, 64);
  check_range("seed", a.seed, 0, (1LL << 62));
  check_range("sessions", o.sessions, 0, 1000000);
  check_range("max-sessions", o.max_sessions, 1, 10000);
  check_memory_mb("tt-mb", a.tt_mb, 1, 65536);
  check_seconds("move-time", o.move_time);
  check_seconds("search-time", o.search_seconds);
  if (!a.positions_file.empty() && a.games > 0)
    throw InputError("--positions-file and --games are two sources: give one");
  refuse_unless(vm, "stones-in-pits", a.positions_file.empty() && a.games == 0,
                "draws positions inside the table: not with --positions-file or --games");
  refuse_unless(vm, "positions", a.positions_file.empty() && a.games == 0,
                "counts positions drawn inside the table: not with --positions-file or --games");
  o.port = std::to_string(a.port);
  o.tt_bytes = std::size_t(a.tt_mb) << 20;
  return true;
}

int run_referee(int argc, char** argv) {
  RefereeArgs a;
  po::variables_map vm;
  if (!parse_referee_args(argc, argv, a, vm)) return 0;
  require_db(a.db);
  referee::Tables tables(a.db, Rules::kKalah);
  referee::SourceOptions& s = a.o.source;
  s.m = a.pits;
  s.stones = a.stones;
  s.seed = std::uint64_t(a.seed);
  s.count = a.positions;
  const int covered = tables.max_stones(a.pits);
  if (!a.positions_file.empty()) {
    std::ifstream in(a.positions_file);
    if (!in) throw InputError("cannot read --positions-file " + a.positions_file);
    s.kind = referee::SourceOptions::Kind::kFile;
    s.positions = referee::read_positions(in);
    if (s.positions.empty())
      throw InputError("--positions-file " + a.positions_file + " holds no position");
  } else if (a.games > 0) {
    s.kind = referee::SourceOptions::Kind::kGames;
    s.games = a.games;
  } else {
    if (covered < 2)
      throw DbError("database " + a.db + " has no kalah table of " + std::to_string(a.pits) +
                    "-pit boards with 2 stones in pits (kalah gen --rules kalah --pits " +
                    std::to_string(a.pits) + " builds one)");
    s.kind = referee::SourceOptions::Kind::kTable;
    s.lo = 2;
    s.hi = covered;
    if (given(vm, "stones-in-pits")) {
      std::tie(s.lo, s.hi) = parse_beyond("stones-in-pits", a.stones_in_pits);
      if (s.lo < 2 || s.hi > covered)
        throw InputError("--stones-in-pits must lie within 2.." + std::to_string(covered) +
                         ", the levels of the table of " + std::to_string(a.pits) + "-pit boards");
    }
  }
  return referee::run_referee(tables, a.o);
}

const RegisterCommand reg{"referee", "grade KGP bots' moves, evaluations and rules (a KGP server)",
                          &run_referee};

}  // namespace
}  // namespace kalah::cli
