// The subcommand registry of `kalah`: each tools/cli/cmd_*.cpp registers one subcommand.
#pragma once

#include <string>
#include <vector>

namespace kalah::cli {

// A subcommand gets argv without the program name (argv[0] is the subcommand's name) and returns
// the process exit code: 0 success, 1 failure at run time (I/O, database), 2 bad input or usage.
using CommandFn = int (*)(int argc, char** argv);

struct Command {
  std::string name;
  std::string summary;  // one line for `kalah --help`
  CommandFn run;
};

std::vector<Command>& commands();

// Static registration: `static const RegisterCommand reg{"move", "apply a move", &run_move};`
struct RegisterCommand {
  RegisterCommand(std::string name, std::string summary, CommandFn run) {
    commands().push_back({std::move(name), std::move(summary), run});
  }
};

}  // namespace kalah::cli
