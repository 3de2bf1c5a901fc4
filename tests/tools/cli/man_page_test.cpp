// The command documentation against the program: the manual page's command sections (`kalah help
// --man-sections`, which the build splices into kalah.1) hold every command of `kalah --help` with
// its summary and every option of its --help, in roff that prints them literally; docs/COMMANDS.md
// documents every option of every command's usage line; the rule sets (`kalah help --man-rules`)
// are the registry's, with their summaries and starts, as `kalah --help` lists them.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/rules.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/reference.hpp"

namespace {

using kalah::test::contains;
using kalah::test::run_cli;

// The commands `kalah --help` lists, with their summaries.
std::vector<std::pair<std::string, std::string>> listed_commands() {
  const kalah::test::CliResult help = run_cli("KALAH --help");
  EXPECT_EQ(help.status, 0);
  std::vector<std::pair<std::string, std::string>> commands;
  std::istringstream in(help.out.substr(help.out.find("commands:\n") + 10));
  const std::regex line(R"(^  (\S+) +(.*)$)");
  for (std::string l; std::getline(in, l) && !l.empty();)
    if (std::smatch m; std::regex_match(l, m, line)) commands.emplace_back(m[1], m[2]);
  return commands;
}

// The rule sets `kalah --help` lists (the registry's, in its order), with their summaries.
std::vector<std::pair<std::string, std::string>> listed_rule_sets() {
  const kalah::test::CliResult help = run_cli("KALAH --help");
  EXPECT_EQ(help.status, 0);
  std::vector<std::pair<std::string, std::string>> rules;
  const std::size_t at = help.out.find("rule sets (--rules; the first is the default):\n");
  EXPECT_NE(at, std::string::npos) << help.out;
  if (at == std::string::npos) return rules;
  std::istringstream in(help.out.substr(help.out.find('\n', at) + 1));
  const std::regex line(R"(^  (\S+): (.*)$)");
  for (std::string l; std::getline(in, l) && !l.empty();)
    if (std::smatch m; std::regex_match(l, m, line)) rules.emplace_back(m[1], m[2]);
  return rules;
}

// Text as the man page's roff writes it: minus signs escaped.
std::string roff(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '-') out += '\\';
    out += c;
  }
  return out;
}

TEST(ManPage, SectionsHoldEveryCommandItsSummaryAndItsOptions) {
  const kalah::test::CliResult man = run_cli("KALAH help --man-sections");
  ASSERT_EQ(man.status, 0) << man.err;
  const auto commands = listed_commands();
  ASSERT_GE(commands.size(), 10u);
  const std::size_t reference = man.out.find(".SH COMMAND REFERENCE\n");
  ASSERT_NE(reference, std::string::npos);
  for (const auto& [name, summary] : commands) {
    EXPECT_TRUE(contains(man.out.substr(0, reference), ".TP\n.B " + name + "\n" + roff(summary)))
        << name;
    const std::size_t at = man.out.find(".SS kalah " + name + "\n", reference);
    ASSERT_NE(at, std::string::npos) << name;
    const std::size_t end = man.out.find(".SS kalah ", at + 1);
    const std::string section = man.out.substr(at, end - at);
    // Each option of the command's --help: a tagged paragraph with its name in bold.
    const kalah::test::CliResult help = run_cli("KALAH " + name + " --help");
    ASSERT_EQ(help.status, 0) << name;
    const std::regex option(R"(^  (?:-\w \[ )?(--[\w-]+))");
    int options = 0;
    std::istringstream lines(help.out);
    for (std::string l; std::getline(lines, l);) {
      std::smatch m;
      if (!std::regex_search(l, m, option)) continue;
      ++options;
      EXPECT_TRUE(contains(section, "\n\\fB" + roff(m[1].str())) ||
                  contains(section, "[ " + roff(m[1].str()) + " ]"))
          << name << " " << m[1];
    }
    EXPECT_GE(options, 1) << name;
  }
}

TEST(ManPage, RuleSetsAreTheRegistrysWithTheirSummariesAndStarts) {
  const kalah::test::CliResult man = run_cli("KALAH help --man-rules");
  ASSERT_EQ(man.status, 0) << man.err;
  const auto rules = listed_rule_sets();
  ASSERT_EQ(rules.size(), kalah::test::registered_rules().size());
  std::size_t last = 0;
  for (const auto& [name, summary] : rules) {
    const std::size_t at = man.out.find(".TP\n.B " + roff(name) + "\n" + roff(summary));
    ASSERT_NE(at, std::string::npos) << name << "\n" << man.out;
    EXPECT_GE(at, last) << name << ": not in --help's order";
    last = at;
    const kalah::Rules r = *kalah::parse_rules(name);
    EXPECT_TRUE(contains(man.out.substr(at, man.out.find(".TP", at + 1) - at),
                         "starts with " + std::to_string(kalah::start_stones(r)) + " stones"))
        << name;
  }
  EXPECT_TRUE(contains(man.out, "(the default)"));
}

TEST(ManPage, NoLineStartsWithARoffControlCharacterByAccident) {
  const kalah::test::CliResult man = run_cli("KALAH help --man-sections");
  ASSERT_EQ(man.status, 0) << man.err;
  std::istringstream lines(man.out);
  const std::regex request(R"(^\.(SH|SS|TP|PP|B|nf|fi) ?.*$)");
  for (std::string l; std::getline(lines, l);) {
    if (l.empty() || (l[0] != '.' && l[0] != '\'')) continue;
    EXPECT_TRUE(std::regex_match(l, request)) << l;
  }
}

// Every option a command's usage line names is in its section of docs/COMMANDS.md, or in the
// conventions all commands share at the top.
TEST(CommandsDoc, EveryOptionOfAUsageLineIsDocumented) {
  std::ifstream in(KALAH_VECTORS_DIR "/../../docs/COMMANDS.md");
  ASSERT_TRUE(in) << "docs/COMMANDS.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string shared = doc.substr(0, doc.find("\n## "));
  for (const auto& [name, summary] : listed_commands()) {
    const std::size_t at = doc.find("\n## kalah " + name + "\n");
    ASSERT_NE(at, std::string::npos) << "no section ## kalah " << name;
    const std::size_t end = doc.find("\n## ", at + 1);
    const std::string section = doc.substr(at, end - at);
    const kalah::test::CliResult help = run_cli("KALAH " + name + " --help");
    const std::string usage = help.out.substr(0, help.out.find('\n'));
    const std::regex option(R"(--[a-z][\w-]*)");
    for (auto it = std::sregex_iterator(usage.begin(), usage.end(), option);
         it != std::sregex_iterator(); ++it) {
      const std::string o = it->str();
      if (o == "--help") continue;
      EXPECT_TRUE(contains(section, "`" + o) || contains(shared, "`" + o))
          << "docs/COMMANDS.md, kalah " << name << ": " << o;
    }
  }
}

}  // namespace
