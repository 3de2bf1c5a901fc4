// `kalah solve`: the exact value, best moves and principal variation of a position by exhaustive
// search.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>

#include "engine/physical_memory.hpp"
#include "solver/answers/book.hpp"
#include "solver/answers/query.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/session/checkpoint.hpp"
#include "solver/session/checkpoint_writer.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"
#include "tools/cli/solve_args.hpp"
#include "tools/cli/solve_book.hpp"
#include "tools/cli/solve_claims.hpp"
#include "tools/cli/solve_report.hpp"
#include "tools/cli/solve_run.hpp"
#ifdef KALAH_MPI
#include "solver/exhaustive/mpi/distributed_solve.hpp"
#include "tools/cli/run_distributed.hpp"
#endif
#include "engine/stopwatch.hpp"

namespace kalah::cli {
namespace {

const char* kUsage =
    "solve [--rules R] [--pits m] [--stones k | POSITION] [--db PATH | --no-db] [--json] "
    "[--max-time SEC] [--threads N] [--guess-depth D] [--tt-mb MB] [--cache-mb MB] "
    "[--db-load auto|memory|cache] [--db-max-stones N] [--memo N] [--tt-skip N] "
    "[--best-first PLIES [--best-first-budget N]] "
    "[--checkpoint FILE [--checkpoint-every SEC]] [--certificate FILE] [--trace-expanded FILE] "
    "[--at-least L] "
    "[--at-most U] [--progress | --quiet] [--book [--book-plies P]]";
const char* kDescription =
    "Solves a position exhaustively (MTD(f) over exact margins with a transposition table, TT)\n"
    "and prints the outcome for the side to move (win / draw / loss), the exact margin (final\n"
    "kalah difference, side to move minus opponent, game played to its natural end), every best\n"
    "move, a principal variation to the end of the game, nodes, database hits, expanded nodes\n"
    "(those whose moves were searched), time and nodes/s.\n"
    "Without POSITION the start position of --pits/--stones is solved, S to move. POSITION is\n"
    "\"s1,..,sm,SK/n1,..,nm,NK X\" (quote it, or pass board and side as two words).\n"
    "Positions inside the endgame database (--db, default data/kalah.db when it exists and holds\n"
    "the rule set and board size) are answered from it. When --max-time runs out the answer is\n"
    "incomplete: only the proven bounds on the margin are printed (and the exact margin if it was\n"
    "proven before the best moves were).\n"
    "When the position has 8 or more stones in pits beyond the table, the database's values\n"
    "are decoded into memory before the search if they fit in --cache-mb (--db-load auto; by\n"
    "default half of the machine's memory; a 6-pit <= 24-stone table takes 0.78 GiB); else\n"
    "they are read block by block through an LRU cache of --cache-mb. The time printed is the\n"
    "search's; the database's opening and loading time is printed beside it, with the way the\n"
    "table is held.\n"
    "With --checkpoint FILE, what the solve proves is kept in FILE as it runs: the bounds of\n"
    "the margin and of every root move, with the TT whole (FILE is as large\n"
    "as --tt-mb), after each test at the root and every --checkpoint-every seconds (an atomic\n"
    "write: a run killed while writing keeps the previous checkpoint), and at the end after the\n"
    "answer is printed: when that write fails, a warning says so and the exit status is 3. FILE's\n"
    "directory must exist and have room for one write before the search starts (else exit 1).\n"
    "When FILE exists, the solve resumes from it: the same position and rules are required,\n"
    "its TT size is taken, and the tests its bounds decide are skipped. Ctrl-C (SIGINT) or\n"
    "SIGTERM stops a solve as --max-time does: the bounds proven so far are printed (and kept\n"
    "in FILE), and the exit status is 130 or 143.\n"
    "Started by mpirun with 2 or more processes (a build with MPI), process 0 settles the\n"
    "root's moves by tests that the other processes run, each with its own transposition table\n"
    "and database copy; the answer has no principal variation, and --checkpoint keeps the\n"
    "moves' bounds only.\n"
    "With --book, the exact values of the position and of every position within --book-plies\n"
    "moves of it are written into the database's book for this rule set and board size, so\n"
    "query and play from this opening are instant; kalah verify checks the book. Each of those\n"
    "positions is solved with the database at the leaves and the options above (--threads,\n"
    "--tt-mb, 0 sizing the TT to each position, --memo, --guess-depth, --cache-mb, --db-load,\n"
    "--max-time for each); one that runs out of time is not stored and the exit status is 1.\n"
    "Each value solved is kept at once in a file in the database's directory\n"
    "(book-<16 hex digits>.kept, made whole at the start) until the book is stored, then the\n"
    "file is removed: when storing fails (a full disk: free space) or the run is killed, the\n"
    "same command run again takes those values from the file instead of solving them again\n"
    "(a line \"kept: N of them solved by an earlier run\").\n"
    "--json then prints one object: position, rules, db, book_plies, positions, stored,\n"
    "unsolved, reused (taken from the file), threads, tt_mb_min, tt_mb_max (the TT sizes\n"
    "used; 0 when nothing was solved), db_stones, db_in_memory, db_open_seconds, nodes,\n"
    "seconds.\n"
    "With --certificate FILE, after the answer FILE gets a shell script that proves the\n"
    "answer again one root move at a time: its comments give the position, the proven margin,\n"
    "the principal variation and every root move's proven bound; each of its commands proves\n"
    "one move's bounds as claims on the position after it (kalah solve --at-least/--at-most,\n"
    "the same database levels), exit status 0 when they hold. When FILE cannot be written, a\n"
    "warning says so and the exit status is 3.\n"
    "With --at-least L and/or --at-most U, the solve proves only those bounds on the margin,\n"
    "one null-window test each (a bound costs less to prove than the exact margin): it prints\n"
    "each claim, whether it holds and the bound the test proved; exit status 0 when every\n"
    "claim holds, 1 when one does not or the time ran out first. --json then prints one\n"
    "object: position, rules, claims [{claim, holds (null: time ran out), proven}], holds,\n"
    "db_stones, db_in_memory, db_open_seconds, nodes, seconds. With --checkpoint FILE the\n"
    "tests keep their TT and the bounds they prove in FILE as a solve does: a claim that\n"
    "FILE's bounds decide is answered from them, and a test stopped by --max-time or a signal\n"
    "goes on from FILE's TT when run again (a solve of the position resumes from FILE too).";

void add_solve_options(po::options_description& desc, SolveArgs& a,
                       std::vector<std::string>& position_words, std::optional<int>& at_least,
                       std::optional<int>& at_most) {
  std::string tuned;  // the rule sets whose tuning skips the TT above a table in memory
  for_each_rules([&](Rules r) {
    if (tt_skip_tuned(r)) tuned += (tuned.empty() ? "" : ", ") + std::string(rules_name(r));
  });
  const std::string tt_skip_help =
      "boards with at most N stones in pits beyond the database skip the transposition table "
      "(-1: " +
      std::to_string(kTTSkipAboveResident) + " with the database in memory under " +
      (tuned.empty() ? std::string("no rule set") : tuned) +
      ", else 0); the value is the same, "
      "the nodes and time differ";
  // clang-format off
  desc.add_options()
      ("position", po::value(&position_words)->multitoken(), "position to solve (instead of --stones)")
      ("no-db", "search alone, even when the database at --db exists")
      ("json", "print one JSON object")
      ("max-time", po::value(&a.max_time), "give up after SEC seconds (0: no limit)")
      ("tt-mb", po::value(&a.tt_mb)->default_value(a.tt_mb),
       "transposition table size in MiB; 0: sized to the position (64 MiB up to 24 stones in pits "
       "beyond the database, doubled for every 2 more; from 48 stones in pits 64 MiB up to 20, "
       "doubled for every stone more; 16 MiB up to 28 when --tt-skip is in effect, doubled for "
       "every 2 more; at most 2048 and a quarter of the memory), starting at 64 MiB and doubling "
       "as it fills (whole at once with --checkpoint); "
       "at most the memory available (the machine's, within MemAvailable and ulimit -v)")
      ("memo", po::value(&a.memo)->default_value(a.memo),
       "solve boards with up to this many stones in pits once into a dense array (-1: automatic, "
       "0: off)")
      ("threads", po::value(&a.threads)->default_value(a.threads),
       "search threads, 0: all cores (sharing one transposition table; node counts vary from "
       "run to run with more than one)")
      ("guess-depth", po::value(&a.guess_depth)->default_value(a.guess_depth),
       "plies of the heuristic engine search giving MTD(f)'s first guess, used when the position "
       "has 20 or more stones in pits beyond the database (0: guess 0)")
      ("tt-skip", po::value(&a.tt_skip)->default_value(a.tt_skip), tt_skip_help.c_str())
      ("untabled", po::value<int>(), "the former name of --tt-skip: the same, with a notice")
      ("best-first", po::value(&a.best_first)->default_value(a.best_first),
       "each null-window test keeps the nodes within PLIES moves of its root as a tree searched "
       "best first by proof numbers, depth-first below within node budgets (0: depth-first "
       "throughout; -1: on one thread, a 16-ply top in the tests expected to fail (under "
       "kalah-empty-capture, of the moves' tests only the best move's), the others depth-first; "
       "on several, such a top of each thread's own in the tests of the moves after the first "
       "when the threads settle them one a thread (not under kalah-empty-capture), the others "
       "depth-first); the value is the same, the nodes and time differ")
      ("best-first-budget", po::value(&a.best_first_budget)->default_value(a.best_first_budget),
       "the nodes a best-first leaf's first depth-first search may spend (each thread), each "
       "later search of it twice its last")
      ("checkpoint", po::value(&a.checkpoint), "keep what is proven in FILE and resume from it "
       "when it exists")
      ("checkpoint-every", po::value(&a.checkpoint_every)->default_value(a.checkpoint_every),
       "at most this many seconds between writes of the checkpoint")
      ("certificate", po::value(&a.certificate),
       "after the answer, write FILE: a shell script proving each root move's bounds again")
      ("trace-expanded", po::value(&a.trace_expanded),
       "write each position the search expands to FILE, a line each: the mover's pits as "
       "South's (S to move, kalahs empty), a tab, the window's alpha and beta (future margins); "
       "needs --threads 1")
      ("trace-tests", po::bool_switch(&a.trace_tests),
       "print each null-window test at the root as it ends (the claim tested, its answer, the "
       "nodes it took) on stderr, and with --json list them under \"tests\"; needs --threads 1")
      ("at-least", po::value<int>()->notifier([&](int v) { at_least = v; }),
       "prove only that the margin is at least L")
      ("at-most", po::value<int>()->notifier([&](int v) { at_most = v; }),
       "prove only that the margin is at most U")
      ("book", "write the position and its first --book-plies plies into the database's book")
      ("store", "the former name of --book: the same, with a notice")
      ("book-plies", po::value(&a.book_plies)->default_value(a.book_plies),
       "plies below the position written by --book (0..8)");
  // clang-format on
}

// The position: the words of POSITION, else the start of --pits/--stones.
Position solve_position(const GameOptions& game, const std::vector<std::string>& words,
                        const po::variables_map& vm) {
  if (words.empty()) {
    game.check();
    return game.start();
  }
  if (!vm["stones"].defaulted()) throw InputError("give either --stones or a POSITION, not both");
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
  const Position p = parse_position(text);
  if (!vm["pits"].defaulted() && game.pits != p.m)
    throw InputError("--pits " + std::to_string(game.pits) + " disagrees with the position's " +
                     std::to_string(p.m) + " pits");
  return p;
}

// Parses and checks the command line; false when --help was answered.
bool parse_solve_args(int argc, char** argv, SolveArgs& a) {
  GameOptions game;
  std::vector<std::string> position_words;
  std::optional<int> at_least, at_most;
  po::options_description desc("options");
  add_game_options(desc, game);
  add_db_option(desc, a.db_path);
  add_solve_options(desc, a, position_words, at_least, at_most);
  add_progress_options(desc);
  a.db_load.add_to(desc);
  po::positional_options_description pos;
  pos.add("position", -1);
  po::variables_map vm;
  if (!parse_command(argc, argv, kUsage, kDescription, desc, pos, vm)) return false;
  a.rules = game.parsed_rules();
  if (!(a.max_time >= 0)) throw InputError("--max-time must be >= 0");
  check_memory_mb("tt-mb", a.tt_mb, 0, 1 << 20);
  check_range("memo", a.memo, -1, 126);
  a.load = a.db_load.parsed();
  check_range("threads", a.threads, 0, 256);
  a.threads = threads_or_all_cores(a.threads);
  check_range("guess-depth", a.guess_depth, 0, 60);
  if (vm.count("untabled") > 0) {
    if (!vm["tt-skip"].defaulted()) throw InputError("give --tt-skip or --untabled, not both");
    a.tt_skip = vm["untabled"].as<int>();
  }
  check_range(vm.count("untabled") > 0 ? "untabled" : "tt-skip", a.tt_skip, -1, 64);
  check_range("best-first", a.best_first, -1, 64);
  refuse_unless(vm, "best-first-budget", a.best_first != 0, "does not apply to --best-first 0");
  if (a.best_first_budget < 1 || a.best_first_budget > (1LL << 40))
    throw InputError("--best-first-budget must be in [1, 1099511627776]");
  a.write_book = vm.count("book") > 0 || vm.count("store") > 0;
  refuse_unless(vm, "book-plies", a.write_book, "applies only to --book");
  check_range("book-plies", a.book_plies, 0, 8);
  a.explicit_db = !vm["db"].defaulted();
  a.no_db = vm.count("no-db") > 0;
  a.json = vm.count("json") > 0;
  if (a.no_db) {
    if (a.explicit_db) throw InputError("give either --db or --no-db, not both");
    if (a.write_book) throw InputError("--book needs a database: drop --no-db");
    for (const char* o : {"cache-mb", "db-load", "db-max-stones", "tt-skip", "untabled"})
      refuse_unless(vm, o, false, "does not apply to --no-db (no database is read)");
  }
  a.position = solve_position(game, position_words, vm);
  a.progress = progress_wanted(vm);
  refuse_unless(vm, "checkpoint-every", !a.checkpoint.empty(), "applies only to --checkpoint");
  if (!(a.checkpoint_every > 0)) throw InputError("--checkpoint-every must be > 0");
  if (a.write_book && !a.checkpoint.empty())
    throw InputError("--checkpoint applies to a solve, not to --book");
  if (at_least) a.claims.push_back({true, *at_least});
  if (at_most) a.claims.push_back({false, *at_most});
  const int most = 2 * 255;  // a claim's bound: within what any margin could be
  for (const MarginClaim& c : a.claims)
    if (c.bound < -most || c.bound > most)
      throw InputError(std::string(c.at_least ? "--at-least" : "--at-most") + " must be in [" +
                       std::to_string(-most) + ", " + std::to_string(most) + "]");
  for (const char* o : {"certificate", "book", "store"})
    refuse_unless(vm, o, a.claims.empty(), "does not apply to --at-least/--at-most");
  refuse_unless(vm, "certificate", !a.write_book, "applies to a solve, not to --book");
  for (const char* o : {"trace-expanded", "trace-tests"})
    refuse_unless(vm, o, a.threads == 1 && !a.write_book && a.claims.empty(),
                  "applies to a solve on one thread (--threads 1), not to --book, --at-least or "
                  "--at-most");
  if (vm.count("store") > 0)  // the former name, once the command line is known to be good
    std::cerr << "kalah solve: --store is now called --book; it does the same\n";
  if (vm.count("untabled") > 0)
    std::cerr << "kalah solve: --untabled is now called --tt-skip; it does the same\n";
  return true;
}

// --at-least/--at-most: each claim decided by the bounds already proven (a resumed --checkpoint's)
// or by one test, the tests sharing one TT; with --checkpoint, the TT and the margin's
// bounds kept in FILE as for a solve (a later solve or claim resumes from them).
int prove_claims(const SolveArgs& a, Progress& progress) {
  if (!a.checkpoint.empty()) check_checkpoint_writable(a.checkpoint, 0);  // before the database
  SolveSetup setup = open_solve(a, &progress);
  SolveOptions& opt = setup.opt;
  opt.progress = progress.status_sink();
  opt.cancel = &stop_requested;
  Resumed resumed;
  if (!a.checkpoint.empty())
    resumed = resume_checkpoint(a, opt.tt_bytes);
  else
    resumed.tt = allocate_tt("tt-mb", SolveTT::bytes_for(opt.tt_bytes), [&] {
      return std::make_unique<SolveTT>(opt.tt_bytes, SolveTT::Aging::kOff, 1, opt.tt_start_bytes);
    });
  opt.tt_bytes = resumed.tt->max_bytes();
  opt.tt = resumed.tt.get();
  const SolveCheckpoint base = checkpoint_base(solve_job(a), resumed.from, opt.tt_bytes, 1);
  std::unique_ptr<CheckpointWriter> writer;
  if (!a.checkpoint.empty())
    writer = std::make_unique<CheckpointWriter>(a.checkpoint, base, opt.tt, a.checkpoint_every);
  SolveResult run;  // this run: the bounds proven in all, its nodes and seconds
  run.lower = base.proven.lower;
  run.upper = base.proven.upper;
  run.moves = base.proven.moves;
  opt.resume = &run;  // each test's progress line shows the margin's bounds proven so far
  stop_on_signals();
  std::vector<ClaimCheck> checks;
  for (const MarginClaim& c : a.claims) {
    if (stop_requested) break;
    const std::optional<ClaimCheck> known = decided_by_bounds(c, run.lower, run.upper);
    checks.push_back(known ? *known : check_claim(a.rules, a.position, c, opt));
    narrow(run.lower, run.upper, checks.back());
    run.nodes += checks.back().nodes;
    run.seconds += checks.back().seconds;
    if (writer) writer->proven(run);
  }
  progress.clear_line();
  const bool all = checks.size() == a.claims.size() &&
                   std::all_of(checks.begin(), checks.end(),
                               [](const ClaimCheck& c) { return c.holds.value_or(false); });
  const SolveCheckpoint* final_checkpoint = writer ? &writer->finish(run) : nullptr;
  print_claims(a, checks, run, all, setup.use());
  std::cout.flush();
  if (writer && !writer->write_final()) return kOutputNotWritten;
  if (final_checkpoint) print_checkpoint(a, *final_checkpoint, resumed.from.has_value());
  return exit_status_after(all ? 0 : 1);
}

// The position solved, with the database at the leaves unless --no-db; with --checkpoint,
// resumed from FILE and kept in it: the answer is printed first, then the final checkpoint
// written.
int solve_and_print(const SolveArgs& a, Progress& progress) {
  if (!a.checkpoint.empty()) check_checkpoint_writable(a.checkpoint, 0);  // before the database
  if (!a.certificate.empty()) check_file_writable("certificate", a.certificate);
  SolveSetup setup = open_solve(a, &progress);
  SolveOptions& opt = setup.opt;
  std::ofstream trace;
  if (!a.trace_expanded.empty()) {
    trace.open(a.trace_expanded, std::ios::trunc);
    if (!trace) throw std::runtime_error("cannot write the trace " + a.trace_expanded);
    opt.trace_expanded = [&trace](const Position& p, int alpha, int beta) {
      trace << to_string(p) << '\t' << alpha << '\t' << beta << '\n';
    };
  }
  std::vector<RootTest> tests;
  if (a.trace_tests) {
    opt.on_test = [&tests, &progress](const RootTest& t) {
      tests.push_back(t);
      progress.line("test: " + test_text(t));
    };
  }
  opt.progress = progress.status_sink();
  opt.cancel = &stop_requested;
  Resumed resumed;
  std::unique_ptr<CheckpointWriter> writer;
  if (!a.checkpoint.empty()) {
    resumed = resume_checkpoint(a, opt.tt_bytes);
    opt.tt_bytes = resumed.tt->bytes();
    opt.tt = resumed.tt.get();
    if (resumed.from) opt.resume = &resumed.from->proven;
    writer = std::make_unique<CheckpointWriter>(
        a.checkpoint, checkpoint_base(solve_job(a), resumed.from, opt.tt_bytes, 1), opt.tt,
        a.checkpoint_every);
    if (resumed.from) progress.note("resumed: " + proven_text(resumed.from->proven));
    opt.on_proven = [&writer, &progress](const SolveResult& so_far) {
      writer->proven(so_far);
      if (so_far.lower != so_far.upper || !so_far.complete)
        progress.note("proven at " + std::to_string(std::lround(so_far.seconds)) +
                      " s: " + proven_text(so_far));
    };
  }
  stop_on_signals();
  // Without a TT of the caller's, the solve allocates its own of opt.tt_bytes first.
  const auto search = [&] { return solve(a.rules, a.position, opt); };
  const SolveResult r =
      opt.tt != nullptr ? search() : allocate_tt("tt-mb", SolveTT::bytes_for(opt.tt_bytes), search);
  progress.clear_line();
  if (trace.is_open() && !trace.flush())
    throw std::runtime_error("cannot write the trace " + a.trace_expanded);
  if (const int status = print_answer(a, r, setup.use(), writer.get(), resumed.from.has_value(),
                                      a.trace_tests ? &tests : nullptr))
    return status;
  if (!a.certificate.empty() &&
      !write_certificate(a.certificate,
                         certificate_text(a.position, r, {a.rules, a.db_path, setup.use().stones})))
    return kOutputNotWritten;
  return exit_status_after(0);
}

#ifdef KALAH_MPI
// Process 0 of a distributed solve: the root's moves settled by the other processes' tests, kept
// in --checkpoint (bounds only: each process's TT stays its own) and printed.
int coordinate_and_print(const SolveArgs& a, const SolveOptions& opt, int processes,
                         Progress& progress, const DbUse& use) {
  std::optional<SolveCheckpoint> from;
  std::unique_ptr<CheckpointWriter> writer;
  if (!a.checkpoint.empty()) {
    from = checkpoint_to_resume(a.checkpoint, a.rules, a.position);
    if (from && from->has_tt)
      throw InputError("checkpoint " + a.checkpoint +
                       " holds a single-process solve's table, which a distributed run would "
                       "drop: resume it on one process, or give the distributed run another FILE");
    check_checkpoint_writable(a.checkpoint, 0);
    writer = std::make_unique<CheckpointWriter>(
        a.checkpoint, checkpoint_base(solve_job(a), from, opt.tt_bytes, processes), nullptr,
        a.checkpoint_every);
  }
  progress.status("the engine's first guess");
  const int guess = solve_guess(a.rules, a.position, opt);
  progress.note("distributed solve on " + std::to_string(processes) + " processes (" +
                std::to_string(processes - 1) + " searching), first tests at margin " +
                std::to_string(guess));
  const SolveResult r = coordinate_split_solve(
      a.rules, a.position, guess, from ? &from->proven : nullptr, processes, a.max_time,
      [&](const SolveResult& so_far, const std::string& state) {
        if (writer) writer->proven(so_far);
        progress.note("proven at " + std::to_string(std::lround(so_far.seconds)) +
                      " s: margin in [" + std::to_string(so_far.lower) + ", " +
                      std::to_string(so_far.upper) + "]; " + state);
      });
  return print_answer(a, r, use, writer.get(), from.has_value());
}

// `mpirun -np P kalah solve ...`: every process opens the database; process 0 coordinates
// (coordinate_split_solve), the others test with their own TTs. A failure
// anywhere ends every process.
int solve_distributed(const SolveArgs& a) {
  return run_distributed("solve", [&](MpiSession& mpi) {
    const bool root = mpi.rank() == 0;
    if (mpi.size() < 2)
      throw InputError("a distributed solve needs 2 or more processes (process 0 coordinates)");
    if (a.write_book) throw InputError("--book does not run distributed");
    if (!a.claims.empty() || !a.certificate.empty() || !a.trace_expanded.empty() || a.trace_tests)
      throw InputError(
          "--at-least, --at-most, --certificate, --trace-expanded and --trace-tests do not run "
          "distributed");
    if (is_over(a.rules, a.position)) throw InputError("the game is over: nothing to solve");
    SolveSetup setup = open_solve(a, nullptr);
    SolveOptions& opt = setup.opt;
    if (!root) {
      const auto tt = allocate_tt("tt-mb", SolveTT::bytes_for(opt.tt_bytes),
                                  [&] { return std::make_unique<SolveTT>(opt.tt_bytes); });
      opt.tt = tt.get();
      serve_split_tests(a.rules, a.position, opt);
      return 0;
    }
    Progress progress(a.progress);  // process 0's alone
    return coordinate_and_print(a, opt, mpi.size(), progress, setup.use());
  });
}
#endif

int run_solve(int argc, char** argv) {
  SolveArgs a;
  if (!parse_solve_args(argc, argv, a)) return 0;
#ifdef KALAH_MPI
  if (started_by_mpi_launcher()) return solve_distributed(a);
#endif
  Progress progress(a.progress);
  if (!a.claims.empty()) return prove_claims(a, progress);
  return a.write_book ? write_book(a, progress) : solve_and_print(a, progress);
}

const RegisterCommand reg{
    "solve", "exact value, best moves and PV of a position by exhaustive search", &run_solve};

}  // namespace
}  // namespace kalah::cli
