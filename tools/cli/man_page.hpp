// The manual page's command sections, written from the command registry and each command's own
// --help: `kalah help --man-sections`, which the build splices into docs/kalah.1.in.
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

}  // namespace kalah::cli
