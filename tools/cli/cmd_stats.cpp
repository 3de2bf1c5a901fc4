// `kalah stats`: per-level value signs and stored size of a database table, optionally as SVG.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>

#include "db/level_stats.hpp"
#include "db/store.hpp"
#include "tools/cli/command.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"
#include "tools/cli/stats_svg.hpp"

namespace kalah::cli {
namespace {

std::string percent(std::uint64_t part, std::uint64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return buf;
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1 << 20));
  return buf;
}

// The table the options name, or the only one; InputError listing the tables otherwise.
TableId pick_table(const Store& store, const std::string& db, std::optional<Rules> rules,
                   int pits) {
  std::vector<TableId> match;
  std::string held;
  for (const TableId& t : store.tables()) {
    held += (held.empty() ? "" : ", ") + to_string(t);
    if ((!rules || t.rules == *rules) && (!pits || t.m == pits)) match.push_back(t);
  }
  if (held.empty()) throw DbError("database " + db + " holds no table");
  if (match.size() == 1) return match[0];
  if (match.empty())
    throw InputError("database " + db + " has no table matching --rules/--pits (it holds: " + held +
                     ")");
  throw InputError("database " + db + " holds several tables (" + held +
                   "): choose one with --rules and --pits");
}

void print_row(const std::string& label, std::uint64_t entries, std::uint64_t pos,
               std::uint64_t zero, std::uint64_t neg, std::uint64_t bytes, const char* note) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%5s %15s %15s %15s %15s %6s %6s %6s %13s %8.3f%s\n",
                label.c_str(), with_commas(entries).c_str(), with_commas(pos).c_str(),
                with_commas(zero).c_str(), with_commas(neg).c_str(), percent(pos, entries).c_str(),
                percent(zero, entries).c_str(), percent(neg, entries).c_str(),
                with_commas(bytes).c_str(), entries ? 8.0 * double(bytes) / double(entries) : 0.0,
                note);
  std::cout << buf;
}

// The header line: which levels are sound from 0, what the table record claims, the book.
void print_header(const Store& store, const std::string& db, const TableId& t,
                  const std::vector<LevelStats>& levels) {
  const int claimed = store.complete_through(t);
  int through = -1;  // the last level of the sound run from 0 that the table record claims
  for (const LevelStats& l : levels)
    if (l.complete) through = l.n;
  std::cout << to_string(t) << " in " << db << ": "
            << (through >= 0 ? "levels 0.." + std::to_string(through) + " complete"
                             : std::string("no complete levels"))
            << (through < claimed
                    ? "; the table record claims levels 0.." + std::to_string(claimed) +
                          ", but level " + std::to_string(through + 1) + " is damaged or missing"
                    : std::string())
            << "; book: " << book_summary(store.book_size(t)) << "\n";
}

// The table of levels and their total; returns the levels read whole (for the chart).
std::vector<LevelStats> print_levels(const std::vector<LevelStats>& levels) {
  char head[256];
  std::snprintf(head, sizeof head, "%5s %15s %15s %15s %15s %6s %6s %6s %13s %8s\n", "level",
                "entries", "positive", "zero", "negative", "pos%", "zero%", "neg%", "bytes",
                "bits/pos");
  std::cout << head;
  LevelStats total;
  std::vector<LevelStats> sound;
  bool after_damage = false;
  for (const LevelStats& l : levels) {
    if (!l.damage.empty()) {
      std::cout << std::setw(5) << l.n << " DAMAGED: " << l.damage << "\n";
      after_damage = true;
      continue;
    }
    sound.push_back(l);
    print_row(std::to_string(l.n), l.entries, l.positive, l.zero, l.negative, l.stored_bytes,
              l.complete     ? ""
              : after_damage ? "  (after a damaged level: not probed)"
                             : "  (after a missing level: not probed)");
    total.entries += l.entries;
    total.positive += l.positive;
    total.zero += l.zero;
    total.negative += l.negative;
    total.stored_bytes += l.stored_bytes;
  }
  print_row("total", total.entries, total.positive, total.zero, total.negative, total.stored_bytes,
            "");
  return sound;
}

// Which run wrote which levels (each build's sound levels, by the first of them), and the levels of
// formats 1 and 2, which the readers that answer values refuse until they are upgraded.
void print_builds(const std::vector<LevelStats>& levels, const std::string& db) {
  std::vector<std::pair<std::uint64_t, std::vector<int>>> builds;  // build 0: the unbound levels
  std::map<std::uint32_t, std::vector<int>> unbound;               // by format
  for (const LevelStats& l : levels) {
    if (!l.damage.empty()) continue;
    if (l.build == 0) {
      unbound[l.format_version].push_back(l.n);
      continue;
    }
    auto it = std::find_if(builds.begin(), builds.end(),
                           [&](const auto& b) { return b.first == l.build; });
    if (it == builds.end()) it = builds.insert(builds.end(), {l.build, {}});
    it->second.push_back(l.n);
  }
  std::string text;
  for (const auto& [build, ns] : builds)
    text += (text.empty() ? "" : ", ") + ("levels " + level_runs(ns)) + " by build " +
            build_name(build);
  if (!text.empty()) std::cout << "written by: " << text << "\n";
  text.clear();
  for (const auto& [format, ns] : unbound)
    text += (text.empty() ? "" : ", ") + ("levels " + level_runs(ns)) + " (format " +
            std::to_string(format) + ")";
  if (!text.empty())
    std::cout << "not bound to their place: " << text << "; queries refuse them until "
              << upgrade_hint(db) << "\n";
}

int run_stats(int argc, char** argv) {
  std::string db = kDefaultDbPath, rules_text, plot;
  int pits = 0;
  po::options_description desc("options");
  add_db_option(desc, db);
  desc.add_options()("rules", po::value(&rules_text),
                     "table of this rule set (needed if the database has several)")(
      "pits", po::value(&pits), "table of this board size (needed if the database has several)")(
      "plot", po::value(&plot), "also write an SVG chart to FILE.svg");
  po::variables_map vm;
  if (!parse_command(
          argc, argv, "stats [--db PATH] [--rules R --pits m] [--plot FILE.svg]",
          "Reads every block of every stored level of one table (verifying its checksums) and\n"
          "prints per level: entries; how many values are positive, zero and negative (a value is\n"
          "the future margin of the stones in pits for the side to move, so with equal kalahs:\n"
          "win, draw, loss); the stored bytes (compressed blocks with their headers) and bits per\n"
          "position; then totals and the size of the LMDB file in use. With several tables in\n"
          "the database, --rules and --pits choose one. --plot writes an SVG with two panels:\n"
          "the win/draw/loss fractions and the bits per position, per level. A level whose\n"
          "record or blocks are damaged, or which is missing inside the levels the table's record\n"
          "claims complete, is listed as DAMAGED; the exit status is then 1. Then which run\n"
          "(kalah gen, kalah verify --upgrade) wrote which levels: its build identity, which\n"
          "each block's checksum covers; and the levels written by format 1 or 2 (checked here\n"
          "with their format's checks), which the commands that answer values refuse until\n"
          "kalah verify --upgrade binds them.",
          desc, {}, vm))
    return 0;
  std::optional<Rules> rules;
  if (vm.count("rules")) {
    rules = parse_rules_name(rules_text);
  }
  if (vm.count("pits")) check_range("pits", pits, 1, kMaxPits);

  Store store(db, false);
  store.read_unbound_levels(true);  // reported as such below
  const TableId t = pick_table(store, db, rules, pits);
  const std::vector<LevelStats> levels = level_stats(store, t);
  const auto first_damaged = std::find_if(levels.begin(), levels.end(),
                                          [](const LevelStats& l) { return !l.damage.empty(); });
  print_header(store, db, t, levels);
  const std::vector<LevelStats> sound = print_levels(levels);
  print_builds(levels, db);
  std::cout << "LMDB file in use (all tables, keys and pages included): " << mib(store.used_bytes())
            << "\n";
  if (!plot.empty()) {
    std::ofstream out(plot);
    out << stats_svg("kalah database " + db + ": " + to_string(t), sound);
    out.close();
    if (!out) throw std::runtime_error("cannot write " + plot);
    std::cout << "chart written to " << plot << "\n";
  }
  if (first_damaged != levels.end()) {
    std::cout.flush();
    std::cerr << "kalah stats: error: " << first_damaged->damage << "\n";
    return 1;
  }
  return 0;
}

const RegisterCommand reg{"stats", "per-level value counts and stored size of a database table",
                          &run_stats};

}  // namespace
}  // namespace kalah::cli
