// Option parsing shared by the subcommands: --help, the common game options, value checks.
#pragma once

#include <cstddef>
#include <new>
#include <string>

#include <boost/program_options.hpp>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah::cli {

namespace po = boost::program_options;

// --rules' help line: the registered rule sets.
std::string rules_option_help();

// --rules, --pits, --stones: the game every subcommand talks about.
struct GameOptions {
  std::string rules = "wetherell";
  int pits = 6;
  int stones = 3;

  Rules parsed_rules() const;  // throws InputError naming the bad value
  void check() const;          // pits 1..12, stones in range; throws InputError
  Position start(Side first = Side::kSouth) const { return start_position(pits, stones, first); }
};
void add_game_options(po::options_description& desc, GameOptions& game);
// --rules and --pits only, for the commands that name a table rather than a game (no --stones).
void add_table_options(po::options_description& desc, GameOptions& game);

// Where --db points when it is not given (relative to the working directory; git-ignored).
inline constexpr const char* kDefaultDbPath = "data/kalah.db";
void add_db_option(po::options_description& desc, std::string& path);

// Parses argv (argv[0] is the subcommand) into vm. With --help prints "usage: kalah USAGE",
// the description and desc to stdout and returns false: the caller then exits 0.
bool parse_command(int argc, char** argv, const std::string& usage, const std::string& description,
                   po::options_description& desc, const po::positional_options_description& pos,
                   po::variables_map& vm);

// Throws InputError "--NAME must be LO..HI" unless lo <= v <= hi.
void check_range(const char* name, long long v, long long lo, long long hi);
// Throws InputError "--NAME must be 0.01..3600 seconds" unless seconds lies there (NaN does not):
// the range of the per-move and per-position time options.
void check_seconds(const char* name, double seconds);

// This machine's physical memory in MiB: the most a table size option may ask for.
long long memory_mb();
// kalah serve's analysis cache by default, in MiB: a sixteenth of memory_room(), within
// 64..1024.
long long serve_tt_mb();

// The memory this process may still allocate, in MiB: the machine's memory, within what the
// system reports available (MemAvailable) and what the address-space limit (RLIMIT_AS, ulimit -v)
// leaves. `why` names the bound that binds ("this machine has N MiB of memory, M MiB of it
// available").
struct MemoryRoom {
  long long mb = 0;
  std::string why;
};
MemoryRoom memory_room();

// check_range for a size in MiB allocated whole: lo..min(hi, memory_room().mb), so a size this
// process cannot hold is a usage error (naming the bound) instead of a failed allocation.
void check_memory_mb(const char* name, long long mb, long long lo, long long hi);
// check_memory_mb for libkalah's analysis cache (api::Options::tt_bytes), which takes mb / 32 MiB
// more for its generations: mb + mb / 32 must fit.
void check_cache_mb(const char* name, long long mb, long long lo, long long hi);

// Throws a one-line std::runtime_error: the table of `bytes` (0: sized to the position by --NAME
// 0) that --NAME sizes could not be allocated, with memory_room()'s bound.
[[noreturn]] void throw_allocation_failed(const char* name, std::size_t bytes);

// allocate()'s result, where allocate() allocates the table of `bytes` that --NAME sizes; its
// std::bad_alloc becomes throw_allocation_failed(name, bytes).
template <class F>
decltype(auto) allocate_tt(const char* name, std::size_t bytes, F&& allocate) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw_allocation_failed(name, bytes);
  }
}

// Whether the user gave --NAME on the command line (not just its default).
bool given(const po::variables_map& vm, const char* name);
// Throws InputError "--NAME REASON" when --NAME was given and `applies` is false: an option that
// would be ignored is refused instead.
void refuse_unless(const po::variables_map& vm, const char* name, bool applies,
                   const std::string& reason);

// --progress and --quiet of the searching commands: progress_wanted() is true with --progress, or
// without --quiet when stderr is a terminal; both together throw InputError.
void add_progress_options(po::options_description& desc);
bool progress_wanted(const po::variables_map& vm);

// A --threads value, 0 meaning all cores, as a thread count (at least 1).
int threads_or_all_cores(int threads);

}  // namespace kalah::cli
