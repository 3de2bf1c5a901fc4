// The manual page's generated parts, which the build splices into docs/kalah.1.in: the command
// sections (`kalah help --man-sections`) and the rule sets (`kalah help --man-rules`).
#pragma once

#include <ostream>
#include <string>

namespace kalah::cli {

// The roff of one command's --help text (its usage line, description and options): the usage in
// bold, the description's unindented lines filled and its indented lines kept as they are, each
// option a tagged paragraph.
std::string help_to_roff(const std::string& help);

// Writes the sections COMMANDS (each registered command with its summary) and COMMAND REFERENCE
// (each command's --help as help_to_roff renders it) in roff.
void write_man_sections(std::ostream& out);

// Writes each registered rule set, in --help order, as a tagged paragraph: its name, its summary
// and its start stones, in roff.
void write_man_rules(std::ostream& out);

}  // namespace kalah::cli
