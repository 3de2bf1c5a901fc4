// The manual page's generated parts, which the build splices into docs/kalah.1.in: the command
// sections from the command registry and each command's own --help (`kalah help --man-sections`),
// the rule sets from the rule-set registry (`kalah help --man-rules`).
#include "tools/cli/man_page.hpp"

#include <algorithm>
#include <iostream>
#include <regex>
#include <sstream>
#include <vector>

#include "engine/rules.hpp"
#include "tools/cli/command.hpp"

namespace kalah::cli {
namespace {

// Text as roff prints it literally: backslashes and minus signs escaped, a line that would start
// with a control character guarded.
std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

bool indented(const std::string& line) {
  return !line.empty() && line[0] == ' ';
}

// An option's first line as boost::program_options prints it: "  -q [ --quiet ] arg (=x)  text".
const std::regex kOptionLine(
    R"(^  ((?:-\w \[ --[\w-]+ \]|--[\w-]+|-\w)(?: arg)?(?: \(=[^)]*\))?)(?: +(.*))?$)");

// An option's name and argument in bold and italics.
std::string option_tag(const std::string& spec) {
  std::string tag = "\\fB" + escape(spec) + "\\fR";
  const std::string arg = " arg";
  if (const auto at = tag.find(arg); at != std::string::npos)
    tag.replace(at, arg.size(), "\\fR \\fIarg\\fR");
  return tag;
}

// The description: blank lines end paragraphs, indented lines (tables, lists) are kept as they
// are, the others filled.
void write_description(std::ostream& out, const std::vector<std::string>& lines) {
  bool no_fill = false;
  out << ".PP\n";
  for (const std::string& line : lines) {
    if (line.empty()) {
      if (no_fill) out << ".fi\n";
      no_fill = false;
      out << ".PP\n";
      continue;
    }
    if (indented(line) != no_fill) {
      out << (indented(line) ? ".nf\n" : ".fi\n");
      no_fill = indented(line);
    }
    out << escape(line) << "\n";
  }
  if (no_fill) out << ".fi\n";
}

// The options: a heading ("options:") in bold, each option a tagged paragraph whose text joins
// its continuation lines.
void write_options(std::ostream& out, const std::vector<std::string>& lines) {
  bool in_option = false;
  for (const std::string& line : lines) {
    std::smatch m;
    if (line.empty()) {
      in_option = false;
    } else if (std::regex_match(line, m, kOptionLine)) {
      out << ".TP\n" << option_tag(m[1]) << "\n";
      if (m[2].length() > 0) out << escape(m[2]) << "\n";
      in_option = true;
    } else if (in_option && indented(line)) {
      out << escape(line.substr(line.find_first_not_of(' '))) << "\n";
    } else {
      out << ".PP\n\\fB" << escape(line) << "\\fR\n";
      in_option = false;
    }
  }
}

// What a command prints for --help, captured from its standard output.
std::string help_of(const Command& c) {
  std::ostringstream text;
  std::streambuf* const saved = std::cout.rdbuf(text.rdbuf());
  std::string name = c.name, flag = "--help";
  char* argv[] = {name.data(), flag.data(), nullptr};
  try {
    c.run(2, argv);
  } catch (...) {
    std::cout.rdbuf(saved);
    throw;
  }
  std::cout.rdbuf(saved);
  return text.str();
}

}  // namespace

std::string help_to_roff(const std::string& help) {
  std::vector<std::string> lines;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::ostringstream out;
  std::size_t i = 0;
  const std::string usage = "usage: ";
  if (!lines.empty() && lines[0].rfind(usage, 0) == 0) {
    out << ".PP\n\\fB" << escape(lines[0].substr(usage.size())) << "\\fR\n";
    i = 1;
  }
  while (i < lines.size() && lines[i].empty()) ++i;
  // The options begin at the first heading followed by an option line.
  std::size_t options = lines.size();
  for (std::size_t j = i; j + 1 < lines.size(); ++j) {
    if (!indented(lines[j]) && !lines[j].empty() && lines[j].back() == ':' &&
        std::regex_match(lines[j + 1], kOptionLine)) {
      options = j;
      break;
    }
  }
  std::vector<std::string> description(lines.begin() + long(i), lines.begin() + long(options));
  while (!description.empty() && description.back().empty()) description.pop_back();
  if (!description.empty()) write_description(out, description);
  write_options(out, {lines.begin() + long(options), lines.end()});
  return out.str();
}

void write_man_sections(std::ostream& out) {
  std::vector<Command> sorted = commands();
  std::sort(sorted.begin(), sorted.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  out << ".SH COMMANDS\n";
  for (const Command& c : sorted) out << ".TP\n.B " << c.name << "\n" << escape(c.summary) << "\n";
  out << ".SH COMMAND REFERENCE\n";
  for (const Command& c : sorted) out << ".SS kalah " << c.name << "\n" << help_to_roff(help_of(c));
}

void write_man_rules(std::ostream& out) {
  bool first = true;
  for_each_rules([&](Rules r) {
    out << ".TP\n.B " << escape(std::string(rules_name(r))) << "\n"
        << escape(std::string(rules_summary(r))) << (first ? " (the default)" : "")
        << "; a new game starts with " << start_stones(r) << " stones a pit.\n";
    first = false;
  });
}

}  // namespace kalah::cli
