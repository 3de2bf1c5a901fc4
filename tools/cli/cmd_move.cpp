// `kalah move POSITION PIT`: applies one move and prints the resulting position.
#include <charconv>
#include <iostream>

#include "engine/describe.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {
namespace {

int parse_pit(const std::string& text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw InputError("pit '" + text + "' is not an integer");
  return v;
}

int run_move(int argc, char** argv) {
  po::options_description desc("options");
  std::string rules = "wetherell";
  std::vector<std::string> args;
  desc.add_options()("rules", po::value(&rules)->default_value(rules), rules_option_help().c_str())(
      "explain", "also print what the move did (relays, captures, extra turn) on a second line")(
      "args", po::value(&args)->multitoken(), "POSITION and PIT");
  po::positional_options_description pos;
  pos.add("args", -1);
  po::variables_map vm;
  if (!parse_command(argc, argv, "move POSITION PIT [--rules R] [--explain]",
                     "Plays pit PIT (1..m, of the side to move) in POSITION and prints the "
                     "resulting position\nin the notation of RULES.md, one line. POSITION is one "
                     "argument (quote it: \"3,3,3,3,3,3,0/3,3,3,3,3,3,0 S\")\nor two, the board "
                     "and the side letter (3,3,3,3,3,3,0/3,3,3,3,3,3,0 S 1). Under wetherell a\n"
                     "position where a kalah already holds more than half the stones still has "
                     "moves (the game\nis decided but not over). Exit status 2 with a one-line "
                     "message for a malformed position,\na pit out of range, an empty pit or a "
                     "position that is over.",
                     desc, pos, vm))
    return 0;
  const Rules r = parse_rules_name(rules);
  std::string position_text;
  std::string pit_text;
  if (args.size() == 2) {
    position_text = args[0];
    pit_text = args[1];
  } else if (args.size() == 3 && (args[1] == "S" || args[1] == "N")) {
    position_text = args[0] + " " + args[1];
    pit_text = args[2];
  } else {
    throw InputError(
        "expected POSITION PIT (POSITION as one quoted argument or as BOARD SIDE), got " +
        std::to_string(args.size()) + " argument(s)");
  }
  Position p = parse_position(position_text);
  const MoveStory story = play_and_describe(r, p, parse_pit(pit_text));
  std::cout << to_string(p) << "\n";
  if (vm.count("explain")) std::cout << describe(story, p.m) << "\n";
  return 0;
}

const RegisterCommand reg{"move", "apply a move to a position and print the result", &run_move};

}  // namespace
}  // namespace kalah::cli
