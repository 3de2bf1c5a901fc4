// `kalah tree`: prints the engine search's tree at a depth as indented text or Graphviz DOT.
#include <iostream>
#include <string>
#include <vector>

#include "engine/tree.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

// What `kalah tree` was asked: the rules and board, the depth, the output and the database.
struct TreeArgs {
  GameOptions game;
  int depth = 3;
  std::string format = "text";
  std::size_t max_nodes = 100000;
  std::vector<std::string> position;  // POSITION as one or two words; empty: the start
  std::string db = kDefaultDbPath;
  po::variables_map vm;
};

// Parses the command line into a; false when --help was printed.
bool parse_tree_args(int argc, char** argv, TreeArgs& a) {
  po::options_description desc("options");
  add_game_options(desc, a.game);
  add_db_option(desc, a.db);
  desc.add_options()("depth,d", po::value(&a.depth)->default_value(a.depth),
                     "search depth in plies, 1..60")(
      "format", po::value(&a.format)->default_value(a.format), "text (indented) or dot (Graphviz)")(
      "max-nodes", po::value(&a.max_nodes)->default_value(a.max_nodes),
      "refuse trees with more nodes than this (searched and pruned, in any iteration), "
      "1..100000000")(
      "position", po::value(&a.position)->multitoken(),
      "the position (also the positional argument; not with --stones); default: the start "
      "position of --pits/--stones");
  po::positional_options_description pos;
  pos.add("position", -1);
  return parse_command(
      argc, argv, "tree [POSITION] [--depth D] [--format text|dot] [OPTIONS]",
      "Searches POSITION to depth D with the engine's search (kalah play's: iterative "
      "deepening\nwith a transposition table, here a fresh one) and prints its last "
      "iteration, every node: the\nmove, its value for the player making it and whether "
      "that value is exact, a lower bound\n(fail-high: the moves after it are pruned) or an "
      "upper bound (fail-low), and the window it\nwas searched with. The root keeps ties "
      "exact (later moves searched with (best - 1, +inf));\n'table move' marks a move "
      "searched first because the transposition table named it, the rest\nfollow the "
      "engine's move order. Leaves are ends of game, the kalah difference at depth 0,\n"
      "'table' (a stored value or bound that decides the window), or database values (--db, "
      "or\n" +
          std::string(kDefaultDbPath) +
          " when it exists). When an iteration before D is already exact, the\ndeepening "
          "stops there and that one is shown. POSITION is one quoted argument or two\n(BOARD "
          "SIDE), as for kalah move. Render DOT with\n`kalah tree ... --format dot | dot "
          "-Tpng -o tree.png`.",
      desc, pos, a.vm);
}

// The position to search: POSITION, or the start of --pits/--stones; checked against the options.
Position tree_position(const TreeArgs& a) {
  Position p;
  const std::vector<std::string>& args = a.position;
  if (args.empty()) {
    p = a.game.start();
  } else if (args.size() == 1) {
    p = parse_position(args[0]);
  } else if (args.size() == 2 && (args[1] == "S" || args[1] == "N")) {
    p = parse_position(args[0] + " " + args[1]);
  } else {
    throw InputError("expected one POSITION (quoted, or as BOARD SIDE), got " +
                     std::to_string(args.size()) + " arguments");
  }
  if (!args.empty()) {  // the position says the board: --stones would be ignored
    if (!a.vm["stones"].defaulted())
      throw InputError("give either --stones or a POSITION, not both");
    if (!a.vm["pits"].defaulted() && a.game.pits != p.m)
      throw InputError("--pits " + std::to_string(a.game.pits) + " disagrees with the position's " +
                       std::to_string(p.m) + " pits");
  }
  return p;
}

int run_tree(int argc, char** argv) {
  TreeArgs a;
  if (!parse_tree_args(argc, argv, a)) return 0;
  a.game.check();
  const Rules rules = a.game.parsed_rules();
  check_range("depth", a.depth, 1, 60);
  check_range("max-nodes", static_cast<long long>(a.max_nodes), 1, 100000000);
  if (a.format != "text" && a.format != "dot")
    throw InputError("--format must be text or dot, got '" + a.format + "'");
  const Position p = tree_position(a);
  if (is_over(rules, p)) throw InputError("the game is over in this position: there is no tree");
  SearchTree tree;
  try {
    const OpenedDb database = open_db_for(a.db, !a.vm["db"].defaulted(), {rules, p.m});
    tree = trace_search(rules, p, a.depth, a.max_nodes, database.probe.get());
  } catch (const TreeTooLarge& e) {
    throw InputError(std::string(e.what()) + " (at depth " + std::to_string(a.depth) +
                     "); use a smaller --depth or raise --max-nodes");
  }
  std::cout << (a.format == "dot" ? tree_to_dot(tree) : tree_to_text(tree));
  return 0;
}

const RegisterCommand reg{"tree", "print the alpha-beta tree of a search (text or Graphviz DOT)",
                          &run_tree};

}  // namespace
}  // namespace kalah::cli
