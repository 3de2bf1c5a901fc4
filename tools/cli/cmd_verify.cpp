// `kalah verify`: check a database against its checksums and against its own successors.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include "solver/answers/book.hpp"
#include "solver/answers/engine_check.hpp"
#include "solver/retrograde/verify.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"

namespace kalah::cli {
namespace {

// What the command line asked for, checked.
struct VerifyArgs {
  std::string db = kDefaultDbPath;
  std::optional<Rules> only_rules;
  int pits = 0;  // 0: every board size
  int threads = 0;
  long long sample = 0;
  std::uint64_t seed = 1;
  bool quiet = false, engine = false, upgrade = false;
  int depth = 6, positions = 1000, resolve = 0, resolve_max = 12;
  // Whether table t is one the options name.
  bool wants(TableId t) const {
    return (!only_rules || t.rules == *only_rules) && (!pits || t.m == pits);
  }
};

const char* const kVerifyUsage =
    "verify [--db PATH] [--rules R] [--pits m] [--sample K] [--threads T] [--upgrade]\n"
    "       kalah verify --engine [--depth d] [--positions K] [--resolve K] [--db PATH]";
const char* const kVerifyDescription =
    "Checks every table of the database (or the one named): reads every block of\n"
    "every level and compares each level's checksum, then checks that every entry\n"
    "(or K random ones) equals the best over its moves of the stones won plus or\n"
    "minus the successor's stored value, with moves played by the engine's rules.\n"
    "Then checks each entry of the table's opening book (kalah solve --book) the same\n"
    "way, successors from the levels, the book or a solve of at most 60 s.\n"
    "Prints counts per level; exits 1 on any damaged block or wrong value.\n\n"
    "Levels written by format 1 or 2 (before each block's checksum named its table,\n"
    "level, index and build) are checked with their format's checks and listed as\n"
    "such; every command that answers values refuses them. --upgrade then binds\n"
    "them: when every check above passes (every entry: not with --sample), each such\n"
    "level's block checksums are rewritten to name their place, a level a transaction\n"
    "(values and compressed bytes unchanged).\n\n"
    "With --engine: from random positions inside the database, the engine (no random\n"
    "choice) picks a move at each depth, and the move is scored with the exact values:\n"
    "moves that lose margin and moves that lose the outcome are counted, without and\n"
    "with the database plugged in. With --resolve K: K random entries are re-solved by\n"
    "the exhaustive solver without the database and compared. Exits 1 if the engine\n"
    "with the database lost any value or any re-solved entry differs.";

void add_verify_options(po::options_description& desc, VerifyArgs& a, std::string& rules_text) {
  add_db_option(desc, a.db);
  desc.add_options()("rules", po::value(&rules_text),
                     "only the table of this rule set (default: every table)")(
      "pits", po::value(&a.pits), "only the table of this board size")(
      "sample", po::value(&a.sample)->default_value(0),
      "check K random entries (spread over the levels, 0..100000000) instead of all (0: all, "
      "which needs the memory of gen); their successors are read from the table decoded into "
      "memory when it fits half of the machine's memory, else through a block cache")(
      "seed", po::value(&a.seed)->default_value(1),
      "random seed of --sample, --engine's positions and --resolve's entries")(
      "threads", po::value(&a.threads)->default_value(0),
      "worker threads of the table check, 0..1024; 0: all cores (more than the cores run as\n"
      "many as the cores)")("quiet,q", po::bool_switch(&a.quiet), "no progress on stderr")(
      "engine", po::bool_switch(&a.engine),
      "instead: check the alpha-beta engine's moves against the exact values, at depths\n"
      "1..--depth, without and with the database at its leaves (with it: must lose nothing)")(
      "depth", po::value(&a.depth)->default_value(a.depth),
      "deepest engine depth checked by --engine (1..30)")(
      "positions", po::value(&a.positions)->default_value(a.positions),
      "random positions inside the database for --engine (1..100000000)")(
      "resolve", po::value(&a.resolve)->default_value(0),
      "instead (or with --engine): re-solve K random entries with the database-free solver "
      "(0..100000000; 0: none)")(
      "resolve-max-stones", po::value(&a.resolve_max)->default_value(a.resolve_max),
      "entries re-solved by --resolve have at most this many stones in pits (0..127)")(
      "upgrade", po::bool_switch(&a.upgrade),
      "after the table check passes, bind the levels of format 1 or 2 to their place (opens\n"
      "the database for writing)");
}

// Parses and checks the command line; false when --help was answered.
bool parse_verify_args(int argc, char** argv, VerifyArgs& a) {
  std::string rules_text;
  po::options_description desc("options");
  add_verify_options(desc, a, rules_text);
  po::variables_map vm;
  if (!parse_command(argc, argv, kVerifyUsage, kVerifyDescription, desc, {}, vm)) return false;
  if (vm.count("rules")) {
    a.only_rules = parse_rules(rules_text);
    if (!a.only_rules)
      throw InputError("unknown rule set '" + rules_text + "' (" + rules_names() + ")");
  }
  if (vm.count("pits")) check_range("pits", a.pits, 1, kMaxPits);
  check_range("threads", a.threads, 0, 1024);
  check_range("depth", a.depth, 1, 30);
  check_range("positions", a.positions, 1, 100000000);
  check_range("resolve", a.resolve, 0, 100000000);
  check_range("sample", a.sample, 0, 100000000);
  check_range("resolve-max-stones", a.resolve_max, 0, 127);
  // Options of one mode given to the other would be ignored: refused instead.
  const bool table_check = !a.engine && a.resolve == 0;
  refuse_unless(vm, "sample", table_check,
                "applies only to the table check, not to --engine/--resolve");
  refuse_unless(vm, "threads", table_check,
                "applies only to the table check (--engine and --resolve use one thread)");
  refuse_unless(vm, "upgrade", table_check,
                "applies only to the table check, not to --engine/--resolve");
  refuse_unless(vm, "upgrade", a.sample == 0, "checks every entry before it binds: drop --sample");
  refuse_unless(vm, "depth", a.engine, "applies only to --engine");
  refuse_unless(vm, "positions", a.engine, "applies only to --engine");
  refuse_unless(vm, "resolve-max-stones", a.resolve > 0, "applies only to --resolve");
  return true;
}

// --engine and --resolve: the engine and the solver against the exact values; true when clean.
bool check_play(const Store& store, TableId t, const VerifyArgs& a) {
  Probe probe(store, t, 256u << 20);
  bool ok = true;
  std::cout << to_string(t) << ": database levels 0.." << probe.max_stones() << "\n";
  if (probe.max_stones() < 1) {
    std::cout << "  no level with stones to check\n";
    return true;
  }
  if (a.engine) {
    Progress progress(!a.quiet);
    EngineCheckOptions o;
    o.positions = a.positions;
    o.max_depth = a.depth;
    o.seed = a.seed;
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
  if (a.resolve > 0) {
    Progress progress(!a.quiet);
    const ResolveReport r = resolve_sample(
        t.rules, probe, a.resolve, a.resolve_max, a.seed,
        [&](std::uint64_t d, std::uint64_t n) { progress.update("re-solving", d, n); });
    progress.step_done("");
    for (const auto& e : r.examples) std::cout << "  differs: " << e << "\n";
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  %s: %d entries (<= %d stones) re-solved without the database in %.2f s (%s "
                  "nodes), %d differ\n",
                  r.mismatches ? "FAILED" : "OK", r.checked,
                  std::min(a.resolve_max, probe.max_stones()), r.seconds,
                  with_commas(r.nodes).c_str(), r.mismatches);
    std::cout << buf;
    ok = ok && r.mismatches == 0;
  }
  return ok;
}

// The levels of formats 1 and 2 in r: listed, or with --upgrade bound to their place when the
// checks passed (`checked`); true unless an upgrade was asked of a table that failed them.
bool bind_unbound(Store& store, TableId t, const VerifyReport& r, bool checked,
                  const VerifyArgs& a) {
  std::vector<int> unbound;
  std::vector<std::uint64_t> sums;  // each unbound level's checksum as the check read it
  for (const LevelCheck& l : r.levels) {
    if (!l.unbound()) continue;
    unbound.push_back(l.n);
    sums.push_back(l.level_checksum);
  }
  if (unbound.empty()) {
    if (a.upgrade) std::cout << "  upgrade: every level is bound to its place already\n";
    return true;
  }
  const std::string levels = "levels " + level_runs(unbound);
  if (!a.upgrade) {
    std::cout << "  " << levels << ": not bound to their place (format 1 or 2), so queries refuse"
              << " them; " << upgrade_hint(a.db) << " after these checks\n";
    return true;
  }
  if (!checked) {
    std::cout << "  upgrade: FAILED: " << levels << " not bound, the table failed the checks\n";
    return false;
  }
  Progress progress(!a.quiet);
  std::uint64_t done = 0;
  for (std::size_t i = 0; i < unbound.size(); ++i) {
    progress.update("binding level " + std::to_string(unbound[i]), done++, unbound.size());
    store.bind_level(t, unbound[i], sums[i]);
  }
  progress.step_done("");
  std::cout << "  upgraded: " << levels << " bound to their place (build "
            << build_name(store.build()) << ")\n";
  return true;
}

// The table check of t (levels, then the book when the levels are sound), then the levels of
// formats 1 and 2 listed or bound; true when clean.
bool check_table(Store& store, TableId t, const VerifyArgs& a) {
  Progress progress(!a.quiet);
  VerifyOptions o;
  o.sample = std::uint64_t(a.sample);
  o.sample_memory_bytes = default_db_memory_bytes();
  o.seed = a.seed;
  o.threads = a.threads;
  o.progress = [&](const std::string& step, std::uint64_t done, std::uint64_t total) {
    progress.update(step, done, total);
  };
  const VerifyReport r = verify_table(store, t, o);
  progress.step_done("");
  std::cout << to_string(t) << ": levels 0.." << r.complete_through << "\n";
  for (const auto& l : r.levels) {
    char buf[200];
    std::snprintf(
        buf, sizeof buf, "  level %2d: %15s entries, checksum %s, %s checked, %s wrong%s\n", l.n,
        with_commas(l.entries).c_str(), l.checksum_ok ? "ok" : "FAILED",
        with_commas(l.checked).c_str(), with_commas(l.mismatches).c_str(),
        l.unbound() ? (", format " + std::to_string(l.format_version) + ": not bound").c_str()
                    : "");
    std::cout << buf;
    if (!l.checksum_ok) std::cout << "    " << l.error << "\n";
  }
  for (const auto& m : r.first_mismatches) std::cout << "  wrong: " << m << "\n";
  std::cout << "  " << (r.ok() ? "OK" : "FAILED") << ": " << with_commas(r.checked)
            << " entries checked, " << with_commas(r.mismatches) << " wrong\n";
  const BookSize book = store.book_size(t);
  if (book.unchecked > 0) std::cout << "  book: " << book_summary(book) << "\n";
  bool ok = r.ok();
  if (book.entries > 0 && ok) {
    try {
      Probe probe(store, t, 256u << 20);
      const BookCheck b = verify_book(t.rules, store, probe, 60);
      for (const auto& e : b.examples) std::cout << "  wrong book entry: " << e << "\n";
      std::cout << "  book: " << b.entries << " entries, " << b.checked << " checked, " << b.wrong
                << " wrong, " << b.unchecked
                << " unchecked (a successor's solve ran out of 60 s)\n";
      ok = b.wrong == 0;
    } catch (const DbError& e) {
      std::cout << "  book: FAILED: " << e.what() << "\n";
      ok = false;
    }
  }
  return bind_unbound(store, t, r, ok, a) && ok;
}

int run_verify(int argc, char** argv) {
  VerifyArgs a;
  if (!parse_verify_args(argc, argv, a)) return 0;
  if (a.upgrade) Store(a.db, false);  // a database that is not there is an error, not created
  Store store(a.db, a.upgrade);
  // The table check reads levels of format 1 and 2 with their format's checks and lists them;
  // --engine and --resolve answer values from the table, which such levels cannot be trusted for.
  store.read_unbound_levels(!a.engine && a.resolve == 0);
  bool all_ok = true;
  int tables = 0;
  for (const TableId t : store.tables()) {
    if (!a.wants(t)) continue;
    ++tables;
    const bool ok = a.engine || a.resolve > 0 ? check_play(store, t, a) : check_table(store, t, a);
    all_ok = ok && all_ok;
  }
  if (tables == 0) throw DbError("database " + a.db + " has no table matching the options");
  return all_ok ? 0 : 1;
}

const RegisterCommand reg{
    "verify", "check a database: checksums, and every entry against its moves", &run_verify};

}  // namespace
}  // namespace kalah::cli
