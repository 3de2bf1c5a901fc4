// `kalah play`: a game at the terminal, human against the engine or the engine against itself.
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

#include "engine/describe.hpp"
#include "engine/search.hpp"
#include "solver/exhaustive/solve.hpp"
#include "tools/cli/board_view.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"

namespace kalah::cli {
namespace {

struct PlayConfig {
  Rules rules = Rules::kWetherell;
  SearchLimits limits;
  bool self = false;
  Side human = Side::kSouth;  // the side a human plays (South, the bottom row); unused with --self
  bool exact = false;         // the engine's moves come from the exhaustive solver
  int threads = 1;            // the solver's threads (with exact)
};

// Why the game is over, in words (RULES.md end of game), for a position where game_finished().
std::string end_reason(Rules rules, const Position& p) {
  if (!is_over(rules, p)) {  // wetherell: a kalah holds more than half the stones
    const Side leader = 2 * int(p.own_kalah()) > p.total_stones() ? p.mover : other(p.mover);
    return std::string(1, side_letter(leader)) + "'s kalah holds " +
           std::to_string(p.side_kalah(leader)) + " of the " + std::to_string(p.total_stones()) +
           " stones, more than half: the game is decided";
  }
  std::string why;
  for (Side s : {p.mover, other(p.mover)}) {
    int n = 0;
    for (int i = 0; i < p.m; ++i) n += p.side_pit(s, i);
    if (n == 0 && why.empty()) why = std::string(1, side_letter(s)) + " has no stones in its pits";
  }
  for (Side s : {Side::kSouth, Side::kNorth}) {
    int n = 0;
    for (int i = 0; i < p.m; ++i) n += p.side_pit(s, i);
    if (n > 0)
      why += std::string("; ") + side_letter(s) + " puts its " + std::to_string(n) +
             " remaining stone" + (n == 1 ? "" : "s") + " into its kalah";
  }
  return why;
}

// "S wins 25-11" / "N wins 20-16" / "draw 18-18"; the pits are swept only at the natural end.
std::string result_line(Rules rules, const Position& p) {
  int south = p.side_kalah(Side::kSouth), north = p.side_kalah(Side::kNorth);
  const bool swept = is_over(rules, p);
  if (swept) {
    for (int i = 0; i < p.m; ++i) {
      south += p.side_pit(Side::kSouth, i);
      north += p.side_pit(Side::kNorth, i);
    }
  }
  std::string out;
  if (south == north) {
    out = "draw " + std::to_string(south) + "-" + std::to_string(north);
  } else {
    const bool s_wins = south > north;
    out = std::string(s_wins ? "S" : "N") + " wins " + std::to_string(s_wins ? south : north) +
          "-" + std::to_string(s_wins ? north : south);
  }
  if (!swept)
    out += " (kalahs as they stand; " + std::to_string(p.pit_stones()) + " stones left in pits)";
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

void print_human_help(const Position& p) {
  std::cout << "Type the number of one of your non-empty pits, 1.." << p.m
            << " (your pits are the bottom row, numbered left to right;\n"
               "stones are sown counter-clockwise towards your kalah at the right).\n"
               "Other commands: board (draw the board again), help, quit.\n";
}

enum class HumanTurn { kMoved, kQuit, kEndOfInput };

// Reads lines until a legal move, which it plays; re-prompts with the reason after bad input.
HumanTurn human_move(const PlayConfig& cfg, Position& p) {
  const bool echo = !isatty(STDIN_FILENO);  // show piped input so the transcript reads well
  while (true) {
    std::cout << side_letter(p.mover) << " to move (pit 1.." << p.m << ", help, quit)> "
              << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) {
      std::cout << "\nend of input: the game is abandoned without a result.\n";
      return HumanTurn::kEndOfInput;
    }
    line = trim(line);
    if (echo) std::cout << line << "\n";
    if (line.empty()) continue;
    if (line == "quit" || line == "q" || line == "exit") {
      std::cout << "You quit: the game is abandoned without a result.\n";
      return HumanTurn::kQuit;
    }
    if (line == "help" || line == "h" || line == "?") {
      print_human_help(p);
      continue;
    }
    if (line == "board") {
      std::cout << draw_board(p);
      continue;
    }
    int pit = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), pit);
    if (ec != std::errc() || end != line.data() + line.size()) {
      std::cout << "'" << line << "' is not a pit number (1.." << p.m
                << "), help or quit; try again.\n";
      continue;
    }
    try {
      const MoveStory story = play_and_describe(cfg.rules, p, pit);
      std::cout << describe(story, p.m) << "\n";
      return HumanTurn::kMoved;
    } catch (const InputError& e) {
      std::cout << e.what() << "; try again.\n";
    }
  }
}

void computer_move(const PlayConfig& cfg, Searcher& searcher, Position& p) {
  const SearchResult r = searcher.search(p, cfg.limits);
  const MoveStory story = play_and_describe(cfg.rules, p, r.pit);
  char stats[128];
  if (r.oracle_hits > 0) {
    std::snprintf(stats, sizeof stats, "%llu nodes, %llu database hits, %.2f s",
                  static_cast<unsigned long long>(r.nodes),
                  static_cast<unsigned long long>(r.oracle_hits), r.seconds);
  } else {
    std::snprintf(stats, sizeof stats, "%llu nodes, %.2f s",
                  static_cast<unsigned long long>(r.nodes), r.seconds);
  }
  std::cout << describe(story, p.m) << "   [value " << signed_value(r.value) << " for "
            << side_letter(story.mover) << ", "
            << (r.exact ? std::string("exact") : "depth " + std::to_string(r.depth)) << "; "
            << stats << "]\n";
}

// Whether a perfectly played game's end agrees with the value proven before its first move
// (`south_margin`, South's margin): at the natural end the final margin equals it; a wetherell game
// decided early has its outcome. Prints a line saying which.
bool check_proven(Rules rules, const Position& p, int south_margin) {
  const auto sign = [](int v) { return (v > 0) - (v < 0); };
  const char* outcomes[] = {"N wins", "draw", "S wins"};
  std::cout << "Proven before the first move: " << outcomes[sign(south_margin) + 1]
            << " (S's margin " << signed_value(south_margin) << "); ";
  if (is_over(rules, p)) {
    const int final_south = p.mover == Side::kSouth ? final_margin(p) : -final_margin(p);
    std::cout << "the game ended with S's margin " << signed_value(final_south)
              << (final_south == south_margin ? ", as proven.\n" : ", NOT as proven.\n");
    return final_south == south_margin;
  }
  const int standing = p.side_kalah(Side::kSouth) - p.side_kalah(Side::kNorth);
  const bool agrees = sign(standing) == sign(south_margin);
  std::cout << "the game was decided with " << (agrees ? "that outcome.\n" : "ANOTHER outcome.\n");
  return agrees;
}

// A move the solver proves best (random among the best unless --no-random), with its exact value
// for the mover and every legal move's. `tt` is the game's TT: each position
// reuses what the earlier ones proved. Returns the mover's value.
int computer_move_exact(const PlayConfig& cfg, ExactOracle* oracle, std::mt19937_64* rng,
                        SolveTT& tt, Position& p) {
  SolveOptions opt;
  opt.oracle = oracle;
  opt.threads = cfg.threads;
  opt.tt = &tt;
  opt.every_move = true;
  opt.find_pv = false;
  const SolveResult r = solve(cfg.rules, p, opt);
  const std::vector<int>& best = r.best_moves;
  const int pit = rng ? best[std::uniform_int_distribution<std::size_t>(0, best.size() - 1)(*rng)]
                      : best.front();
  const MoveStory story = play_and_describe(cfg.rules, p, pit);
  std::string best_list;
  for (int b : best) {
    if (!best_list.empty()) best_list += ' ';
    best_list += std::to_string(b);
  }
  std::string moves;
  for (const MoveBound& m : r.moves) {
    if (!moves.empty()) moves += ' ';
    moves += std::to_string(m.pit) + ":" + std::to_string(m.lower);
  }
  char stats[96];
  std::snprintf(stats, sizeof stats, "%llu nodes, %.2f s", static_cast<unsigned long long>(r.nodes),
                r.seconds);
  std::cout << describe(story, p.m) << "   [exact " << signed_value(r.margin) << " for "
            << side_letter(story.mover) << ", best " << best_list << "; moves " << moves << "; "
            << stats << "]\n";
  return r.margin;
}

const char* const kPlayDescription =
    "Plays a game at the terminal. You play South: your pits are the bottom row, numbered 1..m\n"
    "from left to right, your kalah is at the right; the computer plays North (the top row).\n"
    "Type a pit number to move, 'help' or 'quit'. Input may be piped in; end of input quits.\n"
    "With --self the computer plays both sides. Each engine move shows its value for the mover\n"
    "and 'depth d' (heuristic search) or 'exact' (the true game margin). Without --seed the\n"
    "random choice among equal moves is seeded from the clock; the seed used is printed.\n"
    "Under wetherell the game ends when a kalah holds more than half the stones or the side\n"
    "to move has none in its pits. With an endgame database (--db, or ";
const char* const kPlayDescriptionEnd =
    " when it exists) every\nposition the search reaches inside it is valued exactly. With --exact "
    "every computer move is\nchosen by the exhaustive solver: perfect play, each move with its "
    "exact margin.";

// What the command line asked for, checked.
struct PlayArgs {
  PlayConfig cfg;
  Position start;
  SearchOptions search;  // the engine's options, without its oracle
  std::uint64_t seed = 0;
  std::string db = kDefaultDbPath;
  bool explicit_db = false;
  bool budget_only = false;  // only --nodes/--time: the engine deepens until the budget runs out
};

// Raw values of the options, checked by check_play_args.
struct PlayOptions {
  GameOptions game;
  int depth = 10;
  std::string first = "human";
  std::uint64_t seed = 0;
  std::uint64_t nodes = 0;
  double seconds = 0;
  std::string position;
  int tt_mb = 64;
  int threads = 0;
};

void add_play_options(po::options_description& desc, PlayOptions& o, std::string& db) {
  add_game_options(desc, o.game);
  add_db_option(desc, db);
  desc.add_options()("depth,d", po::value(&o.depth)->default_value(o.depth),
                     "engine search depth in plies, 1..60 (60 when only --nodes/--time is given)")(
      "first", po::value(&o.first)->default_value(o.first),
      "who moves first from the start position: human or computer (not with --self/--position)")(
      "self", "the computer plays both sides")(
      "seed", po::value(&o.seed),
      "seed for the random choice among equally good moves (reproducible)")(
      "no-random", "among equally good moves always take the lowest pit")(
      "nodes", po::value(&o.nodes), "node budget per engine move (0: none)")(
      "time", po::value(&o.seconds), "time budget per engine move in seconds (0: none)")(
      "position", po::value(&o.position),
      "start from this position (\"s1,..,SK/n1,..,NK X\"; not with --pits/--stones)")(
      "tt-mb", po::value(&o.tt_mb)->default_value(o.tt_mb),
      "transposition table size in MiB, 1..65536 (not with --exact)")(
      "exact",
      "the computer plays only moves the exhaustive solver proves best, each with its exact value\n"
      "and every legal move's (not with --depth/--nodes/--time/--tt-mb; beyond the database each\n"
      "move is a full analysis, its transposition table kept for the whole game)")(
      "threads", po::value(&o.threads)->default_value(o.threads),
      "solver threads with --exact, 0: all cores");
}

// The options' checks and the game they describe.
void check_play_args(const PlayOptions& o, const po::variables_map& vm, PlayArgs& a) {
  if (vm.count("position")) {  // the position says the board
    for (const char* board : {"stones", "pits"})
      refuse_unless(vm, board, false,
                    "does not apply with --position (the position says the board)");
  }
  o.game.check();
  PlayConfig& cfg = a.cfg;
  cfg.rules = o.game.parsed_rules();
  cfg.self = vm.count("self") > 0;
  cfg.exact = vm.count("exact") > 0;
  check_range("depth", o.depth, 1, 60);
  check_range("threads", o.threads, 0, 256);
  cfg.threads = threads_or_all_cores(o.threads);
  const char* const to_the_end = "does not apply to --exact (the solver searches to the end)";
  refuse_unless(vm, "depth", !cfg.exact, to_the_end);
  refuse_unless(vm, "tt-mb", !cfg.exact, to_the_end);
  refuse_unless(vm, "nodes", !cfg.exact || o.nodes == 0, to_the_end);
  refuse_unless(vm, "time", !cfg.exact || o.seconds == 0, to_the_end);
  refuse_unless(vm, "threads", cfg.exact, "applies only to --exact");
  check_memory_mb("tt-mb", o.tt_mb, 1, 65536);
  if (!(o.seconds >= 0 && o.seconds <= 1e6)) throw InputError("--time must be 0..1000000 seconds");
  if (o.first != "human" && o.first != "computer")
    throw InputError("--first must be human or computer, got '" + o.first + "'");
  if (!vm["first"].defaulted() && (cfg.self || vm.count("position")))
    throw InputError("--first applies only to a human game from the start position");
  if (vm.count("seed") && vm.count("no-random"))
    throw InputError("--seed and --no-random exclude each other");
  a.budget_only = vm["depth"].defaulted() && (o.nodes > 0 || o.seconds > 0);
  cfg.limits = {a.budget_only ? 60 : o.depth, o.nodes, o.seconds};
  a.start = vm.count("position")
                ? parse_position(o.position)
                : o.game.start(o.first == "computer" ? Side::kNorth : Side::kSouth);
}

// Parses and checks the command line; false when --help was answered.
bool parse_play_args(int argc, char** argv, PlayArgs& a) {
  PlayOptions o;
  po::options_description desc("options");
  add_play_options(desc, o, a.db);
  po::variables_map vm;
  const std::string description =
      kPlayDescription + std::string(kDefaultDbPath) + kPlayDescriptionEnd;
  if (!parse_command(argc, argv, "play [OPTIONS]", description, desc, {}, vm)) return false;
  check_play_args(o, vm, a);
  a.explicit_db = !vm["db"].defaulted();
  a.search.tt_bytes = std::size_t(o.tt_mb) << 20;
  a.search.randomize = vm.count("no-random") == 0;
  a.seed = o.seed;
  if (!vm.count("seed")) {
    std::random_device rd;
    a.seed = (std::uint64_t(rd()) << 32) ^ rd() ^
             std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  a.search.seed = a.seed;
  return true;
}

// The header: the game, the engine and the database.
void print_play_header(const PlayArgs& a, const OpenedDb& database) {
  const PlayConfig& cfg = a.cfg;
  const Position& p = a.start;
  std::cout << "kalah play: " << rules_name(cfg.rules) << ", " << p.m << " pits, "
            << p.total_stones() << " stones; "
            << (cfg.self ? std::string("computer against itself")
                         : std::string("you are S (bottom row), the computer is N (top row)"))
            << "\nengine: ";
  if (cfg.exact) {
    std::cout << "exhaustive solver (exact), " << cfg.threads << " thread"
              << (cfg.threads == 1 ? "" : "s");
  } else {
    std::cout << (cfg.limits.depth == 60 && a.budget_only
                      ? std::string("deepening")
                      : "depth " + std::to_string(cfg.limits.depth));
    if (cfg.limits.nodes) std::cout << ", at most " << cfg.limits.nodes << " nodes";
    if (cfg.limits.seconds > 0) std::cout << ", at most " << cfg.limits.seconds << " s";
  }
  std::cout << " per move; "
            << (a.search.randomize
                    ? "random choice among equal moves, seed " + std::to_string(a.seed)
                    : std::string("lowest pit among equal moves"));
  if (database.probe)
    std::cout << "\ndatabase: " << a.db << ", exact with up to " << database.probe->max_stones()
              << " stones in pits, "
              << (database.probe->resident() ? "loaded into memory" : "read through a block cache");
  std::cout << "\n\n" << draw_board(p);
  if (!cfg.self) print_human_help(p);
}

// Plays the game to its end (or the human's quit); with --exact --self, checks its end against the
// value proven before the first move.
int play_game(const PlayArgs& a, ExactOracle* oracle) {
  const PlayConfig& cfg = a.cfg;
  Position p = a.start;
  SearchOptions search = a.search;
  search.oracle = oracle;
  Searcher searcher =
      allocate_tt("tt-mb", search.tt_bytes, [&] { return Searcher(cfg.rules, search); });
  std::mt19937_64 rng(a.seed);
  std::optional<int> proven;    // --exact --self: the first move's value for South
  std::unique_ptr<SolveTT> tt;  // --exact: the solver's TT, kept for the whole game
  if (cfg.exact)
    tt = std::make_unique<SolveTT>(auto_tt_bytes(cfg.rules, p, oracle), SolveTT::Aging::kOff, 1,
                                   kAutoTtStartBytes);
  while (!game_finished(cfg.rules, p)) {
    std::cout << "\n";
    if (!cfg.self && p.mover == cfg.human) {
      if (human_move(cfg, p) != HumanTurn::kMoved) {
        std::cout << "position: " << to_string(p) << "\n";
        return 0;
      }
    } else if (cfg.exact) {
      const Side mover = p.mover;
      const int v = computer_move_exact(cfg, oracle, search.randomize ? &rng : nullptr, *tt, p);
      if (!proven) proven = mover == Side::kSouth ? v : -v;
    } else {
      computer_move(cfg, searcher, p);
    }
    std::cout << draw_board(p);
  }
  std::cout << "\nGame over: " << end_reason(cfg.rules, p)
            << ".\nResult: " << result_line(cfg.rules, p) << "\n";
  const bool agrees = !(cfg.self && proven) || check_proven(cfg.rules, p, *proven);
  std::cout << "position: " << to_string(p) << "\n";
  if (!agrees) throw std::runtime_error("perfect play did not reach the proven value");
  return 0;
}

int run_play(int argc, char** argv) {
  PlayArgs a;
  if (!parse_play_args(argc, argv, a)) return 0;
  // The solver decodes the table as --db-load auto would for the first position; the engine's
  // searches probe too few positions to repay decoding, and read it through the block cache.
  const TableId table{a.cfg.rules, a.start.m};
  const OpenedDb database = a.cfg.exact
                                ? open_db_for(a.db, a.explicit_db, table, default_db_memory_bytes(),
                                              TableLoad::kAuto, -1, a.start.pit_stones())
                                : open_db_for(a.db, a.explicit_db, table);
  print_play_header(a, database);
  return play_game(a, database.probe.get());
}

const RegisterCommand reg{
    "play", "play against the engine at the terminal, or watch it play itself", &run_play};

}  // namespace
}  // namespace kalah::cli
