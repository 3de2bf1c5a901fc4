// `kalah verify`: check a database against its checksums and against its own successors.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include "book.hpp"
#include "command.hpp"
#include "db_open.hpp"
#include "engine_check.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "verify.hpp"

namespace kalah::cli {
namespace {

// --engine and --resolve: the engine and the solver against the exact values; true when clean.
bool check_play(const Store& store, TableId t, bool engine, int depth, int positions, int resolve,
                int resolve_max, std::uint64_t seed, bool quiet) {
  Probe probe(store, t, 256u << 20);
  bool ok = true;
  std::cout << to_string(t) << ": database levels 0.." << probe.max_stones() << "\n";
  if (probe.max_stones() < 1) {
    std::cout << "  no level with stones to check\n";
    return true;
  }
  if (engine) {
    Progress progress(!quiet);
    EngineCheckOptions o;
    o.positions = positions;
    o.max_depth = depth;
    o.seed = seed;
    o.progress = [&](const std::string& step, std::uint64_t done, std::uint64_t total) {
      progress.update(step, done, total);
    };
    const EngineCheckReport r = check_engine(t.rules, probe, o);
    progress.step_done("");
    std::cout
        << "  engine    depth  positions  margin-losing moves  outcome-losing moves  margin lost\n";
    for (const auto& row : r.rows) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "  %-9s %5d  %9d  %19d  %20d  %11lld\n",
                    row.with_db ? "+database" : "alone", row.depth, row.positions,
                    row.margin_losses, row.outcome_losses, row.margin_lost);
      std::cout << buf;
      if (row.with_db && row.margin_losses) ok = false;
    }
    for (const auto& e : r.examples) std::cout << "  lost value: " << e << "\n";
    std::cout << "  "
              << (ok ? "OK: with the database the engine never lost value"
                     : "FAILED: the engine with the database lost value")
              << "\n";
  }
  if (resolve > 0) {
    Progress progress(!quiet);
    const ResolveReport r = resolve_sample(
        t.rules, probe, resolve, resolve_max, seed,
        [&](std::uint64_t d, std::uint64_t n) { progress.update("re-solving", d, n); });
    progress.step_done("");
    for (const auto& e : r.examples) std::cout << "  differs: " << e << "\n";
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  %s: %d entries (<= %d stones) re-solved without the database in %.2f s (%s "
                  "nodes), %d differ\n",
                  r.mismatches ? "FAILED" : "OK", r.checked,
                  std::min(resolve_max, probe.max_stones()), r.seconds,
                  with_commas(r.nodes).c_str(), r.mismatches);
    std::cout << buf;
    ok = ok && r.mismatches == 0;
  }
  return ok;
}

int run_verify(int argc, char** argv) {
  std::string db = kDefaultDbPath, rules_text;
  int pits = 0, threads = 0;
  long long sample = 0;
  std::uint64_t seed = 1;
  bool quiet = false, engine = false;
  int depth = 6, positions = 1000, resolve = 0, resolve_max = 12;
  po::options_description desc("options");
  add_db_option(desc, db);
  desc.add_options()("rules", po::value(&rules_text),
                     "only the table of this rule set (default: every table)")(
      "pits", po::value(&pits), "only the table of this board size")(
      "sample", po::value(&sample)->default_value(0),
      "check K random entries (spread over the levels, 0..100000000) instead of all (0: all, "
      "which needs the memory of gen); their successors are read from the table decoded into "
      "memory when it fits half of the machine's memory, else through a block cache")(
      "seed", po::value(&seed)->default_value(1),
      "random seed of --sample, --engine's positions and --resolve's entries")(
      "threads", po::value(&threads)->default_value(0),
      "worker threads of the table check, 0..1024; 0: all cores")(
      "quiet,q", po::bool_switch(&quiet), "no progress on stderr")(
      "engine", po::bool_switch(&engine),
      "instead: check the alpha-beta engine's moves against the exact values, at depths\n"
      "1..--depth, without and with the database at its leaves (with it: must lose nothing)")(
      "depth", po::value(&depth)->default_value(depth),
      "deepest engine depth checked by --engine (1..30)")(
      "positions", po::value(&positions)->default_value(positions),
      "random positions inside the database for --engine (1..100000000)")(
      "resolve", po::value(&resolve)->default_value(0),
      "instead (or with --engine): re-solve K random entries with the database-free solver "
      "(0..100000000; 0: none)")(
      "resolve-max-stones", po::value(&resolve_max)->default_value(resolve_max),
      "entries re-solved by --resolve have at most this many stones in pits (0..127)");
  po::variables_map vm;
  if (!parse_command(
          argc, argv,
          "verify [--db PATH] [--rules R] [--pits m] [--sample K] [--threads T]\n"
          "       kalah verify --engine [--depth d] [--positions K] [--resolve K] [--db PATH]",
          "Checks every table of the database (or the one named): reads every block of\n"
          "every level and compares each level's checksum, then checks that every entry\n"
          "(or K random ones) equals the best over its moves of the stones won plus or\n"
          "minus the successor's stored value, with moves played by the engine's rules.\n"
          "Then checks each entry of the table's opening book (kalah solve --store) the same\n"
          "way, successors from the levels, the book or a solve of at most 60 s.\n"
          "Prints counts per level; exits 1 on any damaged block or wrong value.\n\n"
          "With --engine: from random positions inside the database, the engine (no random\n"
          "choice) picks a move at each depth, and the move is scored with the exact values:\n"
          "moves that lose margin and moves that lose the outcome are counted, without and\n"
          "with the database plugged in. With --resolve K: K random entries are re-solved by\n"
          "the exhaustive solver without the database and compared. Exits 1 if the engine\n"
          "with the database lost any value or any re-solved entry differs.",
          desc, {}, vm))
    return 0;
  std::optional<Rules> only_rules;
  if (vm.count("rules")) {
    only_rules = parse_rules(rules_text);
    if (!only_rules)
      throw InputError("unknown rule set '" + rules_text +
                       "' (wetherell, kalah, kalah-empty-capture)");
  }
  if (vm.count("pits")) check_range("pits", pits, 1, kMaxPits);
  check_range("threads", threads, 0, 1024);
  check_range("depth", depth, 1, 30);
  check_range("positions", positions, 1, 100000000);
  check_range("resolve", resolve, 0, 100000000);
  check_range("sample", sample, 0, 100000000);
  check_range("resolve-max-stones", resolve_max, 0, 127);
  // Options of one mode given to the other would be ignored: refused instead.
  const bool table_check = !engine && resolve == 0;
  refuse_unless(vm, "sample", table_check,
                "applies only to the table check, not to --engine/--resolve");
  refuse_unless(vm, "threads", table_check,
                "applies only to the table check (--engine and --resolve use one thread)");
  refuse_unless(vm, "depth", engine, "applies only to --engine");
  refuse_unless(vm, "positions", engine, "applies only to --engine");
  refuse_unless(vm, "resolve-max-stones", resolve > 0, "applies only to --resolve");

  Store store(db, false);
  bool all_ok = true;
  int tables = 0;
  for (const TableId t : store.tables()) {
    if ((only_rules && t.rules != *only_rules) || (pits && t.m != pits)) continue;
    ++tables;
    if (engine || resolve > 0) {
      all_ok = check_play(store, t, engine, depth, positions, resolve, resolve_max, seed, quiet) &&
               all_ok;
      continue;
    }
    Progress progress(!quiet);
    VerifyOptions o;
    o.sample = std::uint64_t(sample);
    o.sample_memory_bytes = default_db_memory_bytes();
    o.seed = seed;
    o.threads = threads;
    o.progress = [&](const std::string& step, std::uint64_t done, std::uint64_t total) {
      progress.update(step, done, total);
    };
    const VerifyReport r = verify_table(store, t, o);
    progress.step_done("");
    std::cout << to_string(t) << ": levels 0.." << r.complete_through << "\n";
    for (const auto& l : r.levels) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "  level %2d: %15s entries, checksum %s, %s checked, %s wrong\n", l.n,
                    with_commas(l.entries).c_str(), l.checksum_ok ? "ok" : "FAILED",
                    with_commas(l.checked).c_str(), with_commas(l.mismatches).c_str());
      std::cout << buf;
      if (!l.checksum_ok) std::cout << "    " << l.error << "\n";
    }
    for (const auto& m : r.first_mismatches) std::cout << "  wrong: " << m << "\n";
    std::cout << "  " << (r.ok() ? "OK" : "FAILED") << ": " << with_commas(r.checked)
              << " entries checked, " << with_commas(r.mismatches) << " wrong\n";
    all_ok = all_ok && r.ok();
    if (store.book_size(t) > 0 && r.ok()) {
      Probe probe(store, t, 256u << 20);
      const BookCheck b = verify_book(t.rules, store, probe, 60);
      for (const auto& e : b.examples) std::cout << "  wrong book entry: " << e << "\n";
      std::cout << "  book: " << b.entries << " entries, " << b.checked << " checked, " << b.wrong
                << " wrong, " << b.unchecked
                << " unchecked (a successor's solve ran out of 60 s)\n";
      all_ok = all_ok && b.wrong == 0;
    }
  }
  if (tables == 0) throw DbError("database " + db + " has no table matching the options");
  return all_ok ? 0 : 1;
}

const RegisterCommand reg{
    "verify", "check a database: checksums, and every entry against its moves", &run_verify};

}  // namespace
}  // namespace kalah::cli
