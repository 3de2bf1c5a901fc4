// `kalah solve`: the exact value, best moves and principal variation of a position by exhaustive
// search.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "options.hpp"
#include "solve.hpp"

namespace kalah::cli {
namespace {

const char* kUsage =
    "solve [--rules R] [--pits m] [--stones k | POSITION] [--db PATH] [--json] [--max-time SEC] "
    "[--tt-mb MB] [--progress]";
const char* kDescription =
    "Solves a position exhaustively (MTD(f) over exact margins with a transposition table) and\n"
    "prints the outcome for the side to move (win / draw / loss), the exact margin (final kalah\n"
    "difference, side to move minus opponent, game played to its natural end), every best move,\n"
    "a principal variation to the end of the game, nodes, database hits, time and nodes/s.\n"
    "Without POSITION the start position of --pits/--stones is solved, S to move. POSITION is\n"
    "\"s1,..,sm,SK/n1,..,nm,NK X\" (quote it, or pass board and side as two words).\n"
    "When --max-time runs out the answer is incomplete: only the proven bounds on the margin are\n"
    "printed (and the exact margin if it was proven before the best moves were).";

std::string join(const std::vector<int>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

// "win" / "draw" / "loss" when the proven bounds decide the outcome, else "".
std::string outcome(const SolveResult& r) {
  if (r.lower > 0) return "win";
  if (r.upper < 0) return "loss";
  if (r.lower == 0 && r.upper == 0) return "draw";
  return "";
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void print_json(const Position& p, Rules rules, const SolveResult& r) {
  const bool exact = r.lower == r.upper;
  const std::string out = outcome(r);
  std::ostringstream o;
  o << "{\"position\": \"" << json_escape(to_string(p)) << "\", \"rules\": \"" << rules_name(rules)
    << "\", \"complete\": " << (r.complete ? "true" : "false")
    << ", \"outcome\": " << (out.empty() ? "null" : "\"" + out + "\"")
    << ", \"margin\": " << (exact ? std::to_string(r.lower) : "null") << ", \"lower\": " << r.lower
    << ", \"upper\": " << r.upper << ", \"best_moves\": ";
  if (r.complete)
    o << "[" << join(r.best_moves, ", ") << "], \"pv\": [" << join(r.pv, ", ") << "]";
  else
    o << "null, \"pv\": null";
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f", r.seconds > 0 ? r.nodes / r.seconds : 0.0);
  o << ", \"nodes\": " << r.nodes << ", \"db_hits\": " << r.oracle_hits
    << ", \"seconds\": " << r.seconds << ", \"nodes_per_second\": " << rate << "}\n";
  std::cout << o.str();
}

void print_text(const Position& p, Rules rules, const SolveResult& r) {
  const std::string out = outcome(r);
  const char mover = side_letter(p.mover);
  std::cout << "position:   " << to_string(p) << " (" << rules_name(rules) << ", " << mover
            << " to move)\n";
  std::cout << "outcome:    " << (out.empty() ? "unknown" : out + " for " + mover)
            << (r.complete ? "" : " (incomplete: time limit)") << "\n";
  if (r.lower == r.upper)
    std::cout << "margin:     " << (r.lower > 0 ? "+" : "") << r.lower << "\n";
  else
    std::cout << "margin:     unknown, proven " << r.lower << " <= margin <= " << r.upper << "\n";
  if (r.complete) {
    std::cout << "best moves: "
              << (r.best_moves.empty() ? "none (game over)" : join(r.best_moves, " ")) << "\n";
    std::cout << "pv:         " << (r.pv.empty() ? "(empty)" : join(r.pv, " ")) << "\n";
  }
  char line[160];
  std::snprintf(line, sizeof line, "nodes:      %llu, db hits %llu, %.3f s, %.2f M nodes/s\n",
                static_cast<unsigned long long>(r.nodes),
                static_cast<unsigned long long>(r.oracle_hits), r.seconds,
                r.seconds > 0 ? r.nodes / r.seconds / 1e6 : 0.0);
  std::cout << line;
}

int run_solve(int argc, char** argv) {
  GameOptions game;
  std::vector<std::string> position_words;
  std::string db_path;
  double max_time = 0;
  long long tt_mb = 256;
  po::options_description desc("options");
  add_game_options(desc, game);
  desc.add_options()("position", po::value(&position_words)->multitoken(),
                     "position to solve (instead of --stones)")(
      "db", po::value(&db_path), "endgame database to probe (exact values inside it)")(
      "json", "print one JSON object")("max-time", po::value(&max_time),
                                       "give up after SEC seconds (0: no limit)")(
      "tt-mb", po::value(&tt_mb)->default_value(tt_mb), "transposition table size in MiB")(
      "progress", "report bounds and node rate on stderr about once a second");
  po::positional_options_description pos;
  pos.add("position", -1);
  po::variables_map vm;
  if (!parse_command(argc, argv, kUsage, kDescription, desc, pos, vm)) return 0;

  const Rules rules = game.parsed_rules();
  if (!(max_time >= 0)) throw InputError("--max-time must be >= 0");
  check_range("tt-mb", tt_mb, 1, 1 << 20);
  Position p;
  if (!position_words.empty()) {
    if (!vm["stones"].defaulted()) throw InputError("give either --stones or a POSITION, not both");
    std::string text;
    for (const auto& w : position_words) text += (text.empty() ? "" : " ") + w;
    p = parse_position(text);
    if (!vm["pits"].defaulted() && game.pits != p.m)
      throw InputError("--pits " + std::to_string(game.pits) + " disagrees with the position's " +
                       std::to_string(p.m) + " pits");
  } else {
    game.check();
    p = game.start();
  }
  if (!db_path.empty()) throw InputError("--db is not available yet (database probing not built)");

  SolveOptions opt;
  opt.tt_bytes = std::size_t(tt_mb) << 20;
  opt.max_seconds = max_time;
  opt.progress = vm.count("progress") > 0;
  const SolveResult r = solve(rules, p, opt);
  if (vm.count("json"))
    print_json(p, rules, r);
  else
    print_text(p, rules, r);
  return 0;
}

const RegisterCommand reg{
    "solve", "exact value, best moves and PV of a position by exhaustive search", &run_solve};

}  // namespace
}  // namespace kalah::cli
