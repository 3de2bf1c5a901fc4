// `kalah gen`: build (or resume, or extend) the endgame database of one rule set and board size.
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "solver/retrograde/build.hpp"
#include "solver/retrograde/level_kernel.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"
#ifdef KALAH_MPI
#include "solver/retrograde/mpi/distributed_build.hpp"
#include "tools/cli/run_distributed.hpp"
#endif

namespace kalah::cli {
namespace {

// The closing line of a build.
void print_report(const BuildReport& r, TableId t, const std::string& db) {
  if (r.first_built < 0) {
    std::cout << to_string(t) << ": levels 0.." << r.complete_through << " already complete in "
              << db << "; nothing to do\n";
  } else {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%s: built levels %d..%d (%s entries) in %.2f s; levels 0..%d complete in %s\n",
                  to_string(t).c_str(), r.first_built, r.complete_through,
                  with_commas(r.entries_built).c_str(), r.seconds, r.complete_through, db.c_str());
    std::cout << buf;
  }
}

#ifdef KALAH_MPI
// `mpirun -np P kalah gen ...`: every process runs this with the same options; process 0 holds
// the database and reports. A failure anywhere ends every process (no process waits forever).
int run_gen_distributed(const BuildOptions& o, const std::string& db, int zstd_level, bool quiet) {
  return run_distributed("gen", [&](MpiSession& mpi) {
    const bool root = mpi.rank() == 0;
    std::unique_ptr<Store> store;
    if (root) {
      store = std::make_unique<Store>(db, true);
      StoreOptions so = store->options();
      so.zstd_level = zstd_level;
      store->set_options(so);
    }
    Progress progress(root && !quiet);
    DistributedEvents events;
    events.loading = [&](int n, int last) {
      progress.update("sending stored levels to " + std::to_string(mpi.size()) + " processes",
                      std::uint64_t(n), std::uint64_t(last + 1));
    };
    events.solving = [&](int n, std::uint64_t done, std::uint64_t total) {
      progress.update("level " + std::to_string(n) + "/" + std::to_string(o.max_stones), done,
                      total);
    };
    events.level_done = [&](const DistributedLevelStats& s) {
      char buf[300];
      std::snprintf(buf, sizeof buf,
                    "level %d: %s entries solved in %.2f s (%.1f M/s, %d bands, %.1f MB "
                    "exchanged), stored in %.2f s (%.1f MB), peak memory %.0f MiB a process "
                    "(%.0f MiB in all)",
                    s.n, with_commas(s.entries).c_str(), s.solve_s,
                    s.solve_s > 0 ? double(s.entries) / s.solve_s / 1e6 : 0.0, s.bands,
                    double(s.solve_bytes) / 1e6, s.store_s, double(s.store_bytes) / 1e6,
                    double(s.peak_memory_max) / double(1 << 20),
                    double(s.peak_memory_sum) / double(1 << 20));
      progress.step_done(buf);
    };
    if (root && !quiet)
      progress.note("distributed build of " + to_string(o.table) + " on " +
                    std::to_string(mpi.size()) + " processes");
    const BuildReport r = build_database_distributed(store.get(), o, events);
    if (root) print_report(r, o.table, db);
    return 0;
  });
}
#endif

// What the command line asked for, checked.
struct GenArgs {
  BuildOptions build;
  std::string db = kDefaultDbPath;
  int zstd_level = 3;
  bool quiet = false;
};

const char* const kGenUsage =
    "gen [--rules R] [--pits m] [--max-stones N] [--db PATH] [--threads T] [--zstd-level L] "
    "[--memory-limit MiB] [--quiet]";
const char* const kGenDescription =
    "Computes the exact future margin of every arrangement of up to N stones in the\n"
    "pits (both sides, side to move first), level by level, in parallel, into the\n"
    "LMDB database at --db (created if absent). Each level is committed on its own:\n"
    "an interrupted run loses at most the level in progress and a re-run resumes;\n"
    "a larger N extends the table; the same or a smaller N does nothing.\n\n"
    "Memory: one byte per entry for levels 0..N, C(N+2m, 2m) bytes, plus a byte per\n"
    "entry of the level being committed. When that exceeds --memory-limit (default 7/8\n"
    "of the machine's memory), the finished levels are packed in place to 5 bits a\n"
    "value (a few % slower) and only the level being solved stays in bytes. Estimates\n"
    "with 6 pits, bytes / packed: N=24 1.43 / 1.17 GiB, N=26 3.08 / 2.51, N=28 6.32 /\n"
    "5.11, N=30 12.45 / 10.00, N=32 23.63 / 18.87. A build that does not fit even\n"
    "packed is refused before it starts, naming the largest N that fits.\n"
    "Disk (zstd level 3): 2.74 bits per entry on the 6-pit wetherell <= 24 table.";

// Parses and checks the command line; false when --help was answered.
bool parse_gen_args(int argc, char** argv, GenArgs& a) {
  GameOptions game;
  int max_stones = 16;
  int threads = 0;
  long long memory_limit_mb = 0;
  po::options_description desc("options");
  add_table_options(desc, game);
  add_db_option(desc, a.db);
  desc.add_options()(
      "max-stones", po::value(&max_stones)->default_value(max_stones),
      "build levels 0..N stones in pits (0..127 as memory allows, below; fewer with 8 or more "
      "pits, whose levels above have too many positions to index: at most 110 with "
      "8, 84 with 9, 69 with 10, 58 with 11, 51 with 12)")(
      "threads", po::value(&threads)->default_value(threads),
      "worker threads, 0..1024; 0: all cores (more than the cores run as many as the cores)")(
      "zstd-level", po::value(&a.zstd_level)->default_value(a.zstd_level),
      "compression level of new levels, 1..19: 3 keeps compression well behind solving;\n"
      "15 stores 14-22% fewer bytes (measured on levels 20 and 14) at ~40x the compression time")(
      "memory-limit", po::value(&memory_limit_mb)->default_value(memory_limit_mb),
      "MiB the tables may use, up to the memory available; 0: 7/8 of the machine's")(
      "quiet,q", po::bool_switch(&a.quiet), "no progress on stderr");
  po::variables_map vm;
  if (!parse_command(argc, argv, kGenUsage, kGenDescription, desc, {}, vm)) return false;
  game.check();
  check_range("threads", threads, 0, 1024);
  check_range("zstd-level", a.zstd_level, 1, 19);
  BuildOptions& o = a.build;
  o.table = {game.parsed_rules(), game.pits};
  o.max_stones = max_stones;
  o.threads = threads;
  check_build_options(o);  // --max-stones within what --pits can index
  if (memory_limit_mb != 0) check_memory_mb("memory-limit", memory_limit_mb, 1, memory_mb());
  o.memory_limit = std::uint64_t(memory_limit_mb) << 20;
  return true;
}

// The build in this process, progress and each level's line on stderr. A build that cannot fit in
// memory is refused before the database is created.
int run_gen_here(const GenArgs& a) {
  const BuildOptions& o = a.build;
  build_packs_levels(o);
  Store store(a.db, true);
  StoreOptions so = store.options();
  so.zstd_level = a.zstd_level;
  so.threads = unsigned(o.threads);
  store.set_options(so);

  Progress progress(!a.quiet);
  const int stored = store.complete_through(o.table);
  std::uint64_t todo = 0;
  for (int n = stored + 1; n <= o.max_stones; ++n) todo += level_entries(o.table.m, n);
  BuildEvents events;
  events.loading = [&](int n, int last) {  // counted in entries; the job's total starts after
    std::uint64_t done = 0, total = 0;
    for (int k = 0; k <= last; ++k) {
      total += level_entries(o.table.m, k);
      if (k < n) done += level_entries(o.table.m, k);
    }
    progress.update("loading stored levels 0.." + std::to_string(last), done, total);
  };
  events.solving = [&](int n, std::uint64_t done, std::uint64_t total) {
    progress.set_job_total(todo);
    progress.update("level " + std::to_string(n) + "/" + std::to_string(o.max_stones), done, total);
  };
  events.level_done = [&](int n, std::uint64_t entries, double solve_s, double write_s) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "level %d: %s entries solved in %.2f s (%.1f M/s), stored in %.2f s", n,
                  with_commas(entries).c_str(), solve_s,
                  solve_s > 0 ? double(entries) / solve_s / 1e6 : 0.0, write_s);
    progress.step_done(buf);
  };
  if (stored >= 0 && stored < o.max_stones)
    progress.note("resuming " + to_string(o.table) + ": levels 0.." + std::to_string(stored) +
                  " are stored");
  print_report(build_database(store, o, events), o.table, a.db);
  return 0;
}

int run_gen(int argc, char** argv) {
  GenArgs a;
  if (!parse_gen_args(argc, argv, a)) return 0;
#ifdef KALAH_MPI
  if (started_by_mpi_launcher()) return run_gen_distributed(a.build, a.db, a.zstd_level, a.quiet);
#endif
  return run_gen_here(a);
}

const RegisterCommand reg{"gen", "build the endgame database (levels 0..N stones in pits)",
                          &run_gen};

}  // namespace
}  // namespace kalah::cli
