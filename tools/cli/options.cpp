// Shared option parsing for the subcommands.
#include "tools/cli/options.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <thread>
#include <typeinfo>

#include "engine/physical_memory.hpp"

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

namespace {

// Whether an option holds an unsigned integer, which Boost converts "-5" into (2^64 - 5 for a
// 64-bit one).
bool holds_unsigned(const po::option_description& option) {
  const auto* typed = dynamic_cast<const po::typed_value_base*>(option.semantic().get());
  if (typed == nullptr) return false;
  const std::type_info& t = typed->value_type();
  return t == typeid(unsigned char) || t == typeid(unsigned short) || t == typeid(unsigned) ||
         t == typeid(unsigned long) || t == typeid(unsigned long long);
}

// Throws InputError naming the option when an unsigned option was given a negative number.
void refuse_negative_counts(const po::options_description& desc, const po::parsed_options& parsed) {
  for (const po::option& o : parsed.options) {
    const po::option_description* option = desc.find_nothrow(o.string_key, false);
    if (option == nullptr || !holds_unsigned(*option)) continue;
    for (const std::string& word : o.value) {
      const std::size_t first = word.find_first_not_of(" \t");
      if (first != std::string::npos && word[first] == '-')
        throw InputError("--" + o.string_key + " must be >= 0, got " + word);
    }
  }
}

}  // namespace

bool parse_command(int argc, char** argv, const std::string& usage, const std::string& description,
                   po::options_description& desc, const po::positional_options_description& pos,
                   po::variables_map& vm) {
  desc.add_options()("help,h", "show this help");
  const po::parsed_options parsed =
      po::command_line_parser(argc, argv).options(desc).positional(pos).run();
  refuse_negative_counts(desc, parsed);
  po::store(parsed, vm);
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

void check_seconds(const char* name, double seconds) {
  if (!(seconds >= 0.01 && seconds <= 3600))
    throw InputError(std::string("--") + name + " must be 0.01..3600 seconds");
}

long long memory_mb() {
  return (long long)(physical_memory_bytes() >> 20);
}

namespace {

// MemAvailable of /proc/meminfo in MiB; -1 when it cannot be read.
long long mem_available_mb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib >> 10;
    in.ignore(256, '\n');
  }
  return -1;
}

// What the address-space limit (RLIMIT_AS) leaves beside this process's present mappings, in
// MiB; -1 when there is no limit.
long long address_space_left_mb() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
  long long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;  // the first field: the mapped size in pages
  const long long used = pages * sysconf(_SC_PAGE_SIZE);
  return std::max(0LL, (long long)(limit.rlim_cur) - used) >> 20;
}

}  // namespace

long long serve_tt_mb() {
  return std::clamp(memory_room().mb / 16, 64LL, 1024LL);
}

MemoryRoom memory_room() {
  MemoryRoom room;
  room.mb = memory_mb();
  room.why = "this machine has " + std::to_string(room.mb) + " MiB of memory";
  if (const long long available = mem_available_mb(); available >= 0 && available < room.mb) {
    room.mb = available;
    room.why += ", " + std::to_string(available) + " MiB of it available";
  }
  if (const long long left = address_space_left_mb(); left >= 0 && left < room.mb) {
    room.mb = left;
    room.why = "the address-space limit, ulimit -v, leaves " + std::to_string(left) + " MiB";
  }
  return room;
}

namespace {

// check_range for a size in MiB of at most room.mb, which room.why explains.
void check_room_mb(const char* name, long long mb, long long lo, long long hi,
                   const MemoryRoom& room) {
  const long long limit = std::max(lo, std::min(hi, room.mb));
  if (mb > limit && mb <= hi)
    throw InputError(std::string("--") + name + " must be " + std::to_string(lo) + ".." +
                     std::to_string(limit) + " (" + room.why + "), got " + std::to_string(mb));
  check_range(name, mb, lo, limit);
}

}  // namespace

void check_memory_mb(const char* name, long long mb, long long lo, long long hi) {
  check_room_mb(name, mb, lo, hi, memory_room());
}

void check_cache_mb(const char* name, long long mb, long long lo, long long hi) {
  MemoryRoom room = memory_room();
  room.mb = room.mb * 32 / 33;
  room.why += "; the analysis cache takes a 32nd more for its generations";
  check_room_mb(name, mb, lo, hi, room);
}

void throw_allocation_failed(const char* name, std::size_t bytes) {
  const std::string table = bytes > 0
                                ? "the " + std::to_string(bytes >> 20) + " MiB table of --" + name
                                : "the table --" + std::string(name) + " 0 sizes to the position";
  throw std::runtime_error("cannot allocate " + table + " (" + memory_room().why +
                           "): give a smaller --" + name);
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
