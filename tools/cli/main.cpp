// Entry point of `kalah`: dispatches to the subcommand named by the first argument.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string_view>

#include <boost/program_options/errors.hpp>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "kalah/kalah.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/man_page.hpp"

namespace kalah::cli {

std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {

void print_usage(std::ostream& out) {
  out << "usage: kalah COMMAND [OPTIONS]   (kalah COMMAND --help for a command's options)\n"
         "       kalah help --man-sections   (the manual page's command sections, in roff)\n"
         "       kalah help --man-rules      (the manual page's rule sets, in roff)\n\n"
         "Solver, endgame-database generator and playing engine for Kalah.\n\ncommands:\n";
  auto sorted = commands();
  std::sort(sorted.begin(), sorted.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  for (const auto& c : sorted) {
    out << "  " << c.name << std::string(c.name.size() < 8 ? 8 - c.name.size() : 1, ' ')
        << c.summary << "\n";
  }
  out << "\nrule sets (--rules; the first is the default):\n";
  kalah::for_each_rules([&](kalah::Rules r) {
    out << "  " << kalah::rules_name(r) << ": " << kalah::rules_summary(r) << "\n";
  });
}

}  // namespace
}  // namespace kalah::cli

int main(int argc, char** argv) {
  using namespace kalah::cli;
  if (argc < 2) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "help" && argc == 3 && std::string_view(argv[2]) == "--man-sections") {
    write_man_sections(std::cout);
    return 0;
  }
  if (name == "help" && argc == 3 && std::string_view(argv[2]) == "--man-rules") {
    write_man_rules(std::cout);
    return 0;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return 0;
  }
  for (const auto& c : commands()) {
    if (c.name != name) continue;
    try {
      return c.run(argc - 1, argv + 1);
    } catch (const kalah::api::Error& e) {
      std::cerr << "kalah " << name << ": error: " << e.what() << "\n";
      return e.kind() == kalah::api::Error::Kind::kInput ? 2 : 1;
    } catch (const kalah::InputError& e) {
      std::cerr << "kalah " << name << ": error: " << e.what() << "\n";
      return 2;
    } catch (const boost::program_options::error& e) {
      std::cerr << "kalah " << name << ": error: " << e.what() << " (see kalah " << name
                << " --help)\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "kalah " << name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "kalah: error: unknown command '" << name << "' (see kalah --help)\n";
  return 2;
}
