// Shared option parsing for the subcommands.
#include "options.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "physical_memory.hpp"

namespace kalah::cli {

std::string rules_option_help() {
  return "rule set: " + rules_names(" or ");
}

Rules GameOptions::parsed_rules() const {
  return parse_rules_name(rules);
}

void GameOptions::check() const {
  parsed_rules();
  check_range("pits", pits, 1, kMaxPits);
  check_range("stones", stones, 0, kMaxTotalStones / (2 * pits));
}

void add_game_options(po::options_description& desc, GameOptions& game) {
  desc.add_options()("rules", po::value(&game.rules)->default_value(game.rules),
                     rules_option_help().c_str())(
      "pits", po::value(&game.pits)->default_value(game.pits), "pits per side, 1..12")(
      "stones", po::value(&game.stones)->default_value(game.stones), "stones per pit at the start");
}

void add_table_options(po::options_description& desc, GameOptions& game) {
  desc.add_options()("rules", po::value(&game.rules)->default_value(game.rules),
                     rules_option_help().c_str())(
      "pits", po::value(&game.pits)->default_value(game.pits), "pits per side, 1..12");
}

void add_db_option(po::options_description& desc, std::string& path) {
  desc.add_options()("db", po::value(&path)->default_value(kDefaultDbPath),
                     "database directory (an LMDB environment)");
}

bool parse_command(int argc, char** argv, const std::string& usage, const std::string& description,
                   po::options_description& desc, const po::positional_options_description& pos,
                   po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: kalah " << usage << "\n\n" << description << "\n\n" << desc << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

void add_progress_options(po::options_description& desc) {
  desc.add_options()("progress",
                     "report the search's bounds, nodes and rate on stderr about once a second "
                     "(the default when stderr is a terminal, where the line is redrawn in place)")(
      "quiet,q", "no progress on stderr");
}

bool progress_wanted(const po::variables_map& vm) {
  if (vm.count("progress") && vm.count("quiet"))
    throw InputError("give either --progress or --quiet, not both");
  return vm.count("progress") || (!vm.count("quiet") && isatty(STDERR_FILENO));
}

void check_range(const char* name, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw InputError(std::string("--") + name + " must be " + std::to_string(lo) + ".." +
                     std::to_string(hi) + ", got " + std::to_string(v));
}

long long memory_mb() {
  return (long long)(physical_memory_bytes() >> 20);
}

long long serve_tt_mb() {
  return std::clamp(memory_mb() / 16, 64LL, 1024LL);
}

void check_memory_mb(const char* name, long long mb, long long lo, long long hi) {
  const long long limit = std::min(hi, memory_mb());
  if (mb > limit && mb <= hi)
    throw InputError(std::string("--") + name + " must be " + std::to_string(lo) + ".." +
                     std::to_string(limit) + " (this machine has " + std::to_string(memory_mb()) +
                     " MiB of memory), got " + std::to_string(mb));
  check_range(name, mb, lo, limit);
}

bool given(const po::variables_map& vm, const char* name) {
  return vm.count(name) && !vm[name].defaulted();
}

void refuse_unless(const po::variables_map& vm, const char* name, bool applies,
                   const std::string& reason) {
  if (!applies && given(vm, name)) throw InputError(std::string("--") + name + " " + reason);
}

int threads_or_all_cores(int threads) {
  return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace kalah::cli
