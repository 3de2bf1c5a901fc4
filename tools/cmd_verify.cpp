// `kalah verify`: check a database against its checksums and against its own successors.
#include <cstdio>
#include <iostream>
#include <optional>

#include "command.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "verify.hpp"

namespace kalah::cli {
namespace {

int run_verify(int argc, char** argv) {
  std::string db = kDefaultDbPath, rules_text;
  int pits = 0, threads = 0;
  std::uint64_t sample = 0, seed = 1;
  bool quiet = false;
  po::options_description desc("options");
  add_db_option(desc, db);
  desc.add_options()
      ("rules", po::value(&rules_text), "only the table of this rule set (default: every table)")
      ("pits", po::value(&pits), "only the table of this board size")
      ("sample", po::value(&sample)->default_value(0),
       "check K random entries (spread over the levels) instead of all; all needs the memory of gen")
      ("seed", po::value(&seed)->default_value(1), "random seed of --sample")
      ("threads", po::value(&threads)->default_value(0), "worker threads; 0: all cores")
      ("quiet,q", po::bool_switch(&quiet), "no progress on stderr");
  po::variables_map vm;
  if (!parse_command(argc, argv, "verify [--db PATH] [--rules R] [--pits m] [--sample K] [--threads T]",
                     "Checks every table of the database (or the one named): reads every block of\n"
                     "every level and compares each level's checksum, then checks that every entry\n"
                     "(or K random ones) equals the best over its moves of the stones won plus or\n"
                     "minus the successor's stored value, with moves played by the engine's rules.\n"
                     "Prints counts per level; exits 1 on any damaged block or wrong value.",
                     desc, {}, vm))
    return 0;
  std::optional<Rules> only_rules;
  if (vm.count("rules")) {
    only_rules = parse_rules(rules_text);
    if (!only_rules) throw InputError("unknown rule set '" + rules_text + "' (wetherell, kalah, kalah-empty-capture)");
  }
  if (vm.count("pits")) check_range("pits", pits, 1, kMaxPits);
  check_range("threads", threads, 0, 1024);

  Store store(db, false);
  bool all_ok = true;
  int tables = 0;
  for (const TableId t : store.tables()) {
    if ((only_rules && t.rules != *only_rules) || (pits && t.m != pits)) continue;
    ++tables;
    Progress progress(!quiet);
    VerifyOptions o;
    o.sample = sample;
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
      std::snprintf(buf, sizeof buf, "  level %2d: %15s entries, checksum %s, %s checked, %s wrong\n", l.n,
                    with_commas(l.entries).c_str(), l.checksum_ok ? "ok" : "FAILED",
                    with_commas(l.checked).c_str(), with_commas(l.mismatches).c_str());
      std::cout << buf;
      if (!l.checksum_ok) std::cout << "    " << l.error << "\n";
    }
    for (const auto& m : r.first_mismatches) std::cout << "  wrong: " << m << "\n";
    std::cout << "  " << (r.ok() ? "OK" : "FAILED") << ": " << with_commas(r.checked) << " entries checked, "
              << with_commas(r.mismatches) << " wrong\n";
    all_ok = all_ok && r.ok();
  }
  if (tables == 0) throw DbError("database " + db + " has no table matching the options");
  return all_ok ? 0 : 1;
}

const RegisterCommand reg{"verify", "check a database: checksums, and every entry against its moves", &run_verify};

}  // namespace
}  // namespace kalah::cli
