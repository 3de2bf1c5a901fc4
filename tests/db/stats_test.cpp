// level_stats and `kalah stats` end to end: counts equal a naive count, table choice, errors, SVG.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <lmdb.h>

#include "db/format.hpp"
#include "db/level_stats.hpp"
#include "db/store.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::TempDir;

// Runs the kalah binary with `args`; captures exit status, stdout and stderr.
test::CliResult kalah(const std::string& args) {
  return test::run_cli("KALAH " + args);
}

constexpr TableId kW2{Rules::kWetherell, 2};

// Levels 0..6 of m=2 with value_of_pits, and the naive sign counts per level.
struct Fixture {
  TempDir dir{"stats"};
  std::vector<std::array<std::uint64_t, 3>> counts;  // positive, zero, negative
  explicit Fixture(bool second_table = false) {
    Store store(dir.str(), true);
    const LevelIndex idx(2, 6);
    for (int n = 0; n <= 6; ++n) {
      const auto v = test::pits_level(idx, n);
      std::array<std::uint64_t, 3> c{};
      for (std::int8_t x : v) ++c[x > 0 ? 0 : x == 0 ? 1 : 2];
      counts.push_back(c);
      store.write_level(kW2, n, v);
    }
    store.write_level(kW2, 8, test::pits_level(LevelIndex(2, 8), 8));  // after a gap
    if (second_table) store.write_level({Rules::kKalah, 3}, 0, std::vector<std::int8_t>{0});
  }
};

TEST(LevelStats, CountsEqualANaiveCount) {
  Fixture f;
  const Store store(f.dir.str(), false);
  const auto s = level_stats(store, kW2);
  ASSERT_EQ(s.size(), 8u);
  for (int n = 0; n <= 6; ++n) {
    EXPECT_EQ(s[n].n, n);
    EXPECT_TRUE(s[n].complete);
    EXPECT_EQ(s[n].entries, level_entries(2, n));
    EXPECT_EQ(s[n].positive, f.counts[n][0]) << n;
    EXPECT_EQ(s[n].zero, f.counts[n][1]) << n;
    EXPECT_EQ(s[n].negative, f.counts[n][2]) << n;
    EXPECT_EQ(s[n].stored_bytes, store.level_meta(kW2, n)->compressed_bytes);
  }
  EXPECT_EQ(s[7].n, 8);
  EXPECT_FALSE(s[7].complete);
}

TEST(StatsCommand, PrintsEveryLevelAndWritesTheChart) {
  Fixture f;
  TempDir scratch("stats_cli");
  std::filesystem::create_directories(scratch.path());
  const auto svg = scratch.path() / "chart.svg";
  const test::CliResult r = kalah("stats --db '" + f.dir.str() + "' --plot '" + svg.string() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wetherell m=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("levels 0..6 complete"), std::string::npos) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  std::uint64_t total[3] = {0, 0, 0};
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string level, entries, pos, zero, neg;
    in >> level >> entries >> pos >> zero >> neg;
    if (level.empty() || !std::isdigit(static_cast<unsigned char>(level[0]))) continue;
    const int n = std::stoi(level);
    if (n > 6) continue;
    ++rows;
    EXPECT_EQ(entries, std::to_string(level_entries(2, n)));  // below 1,000: no commas
    EXPECT_EQ(pos, std::to_string(f.counts[n][0])) << line;
    EXPECT_EQ(zero, std::to_string(f.counts[n][1])) << line;
    EXPECT_EQ(neg, std::to_string(f.counts[n][2])) << line;
    for (int k = 0; k < 3; ++k) total[k] += f.counts[n][k];
  }
  EXPECT_EQ(rows, 7);
  EXPECT_NE(r.out.find("total"), std::string::npos);
  EXPECT_NE(r.out.find("not probed"), std::string::npos);  // level 8 sits after a gap
  const std::string chart = test::slurp(svg.string());
  EXPECT_EQ(chart.rfind("<?xml", 0), 0u);
  EXPECT_NE(chart.find("<svg"), std::string::npos);
  EXPECT_NE(chart.find("</svg>"), std::string::npos);
  EXPECT_NE(chart.find("bits per position"), std::string::npos);
}

// Levels 4 and 5 of a table that claims 0..6 lose their records (5's is replaced by bytes that
// are no level record, 4's is deleted): stats says levels 0..3 are complete and what the table
// record claims, names both levels and exits 1, as verify and query do.
TEST(StatsCommand, LevelsMissingInsideTheClaimedRangeAreNamedAndExitOne) {
  Fixture f;
  test::edit_raw(f.dir.str(), format::level_key(kW2, 4).view(), std::nullopt);
  test::edit_raw(f.dir.str(), format::level_key(kW2, 5).view(), "damaged");
  {
    const Store store(f.dir.str(), false);
    ASSERT_EQ(store.complete_through(kW2), 6);
    const auto s = level_stats(store, kW2);
    ASSERT_EQ(s.size(), 8u);
    for (int n = 0; n <= 3; ++n) EXPECT_TRUE(s[n].complete && s[n].damage.empty()) << n;
    EXPECT_NE(s[4].damage.find("level 4: missing"), std::string::npos) << s[4].damage;
    EXPECT_NE(s[5].damage.find("level 5: corrupt level record"), std::string::npos) << s[5].damage;
    for (int n = 4; n <= 7; ++n) EXPECT_FALSE(s[n].complete) << n;
    EXPECT_EQ(s[6].entries, level_entries(2, 6));
    EXPECT_TRUE(s[6].damage.empty());
  }
  const test::CliResult r = kalah("stats --db '" + f.dir.str() + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("levels 0..3 complete; the table record claims levels 0..6, but level 4 "
                       "is damaged or missing"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("levels 0..6 complete"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    4 DAMAGED: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    5 DAMAGED: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after a damaged level: not probed"), std::string::npos) << r.out;
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("level 4: missing"), std::string::npos) << r.err;
  for (const char* other : {"verify", "query --rules wetherell '1,1,0/0,0,0 S'"})
    EXPECT_EQ(kalah(std::string(other) + " --db '" + f.dir.str() + "'").status, 1) << other;
}

// A damaged block is a DAMAGED line too, with the levels after it listed as not probed.
TEST(StatsCommand, ADamagedBlockIsListedAndExitsOne) {
  Fixture f;
  test::edit_raw(f.dir.str(), format::group_key(kW2, 3, 0).view(), "damaged");
  const test::CliResult r = kalah("stats --db '" + f.dir.str() + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("levels 0..2 complete; the table record claims levels 0..6, but level 3 "
                       "is damaged or missing"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    3 DAMAGED: " + f.dir.str() + ": wetherell m=2 level 3"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("after a damaged level: not probed"), std::string::npos) << r.out;
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
}

TEST(StatsCommand, AsksWhichTableWhenThereAreSeveral) {
  Fixture f(true);
  test::CliResult r = kalah("stats --db '" + f.dir.str() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("wetherell m=2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kalah m=3"), std::string::npos) << r.err;
  r = kalah("stats --db '" + f.dir.str() + "' --rules kalah --pits 3");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("kalah m=3"), std::string::npos);
  r = kalah("stats --db '" + f.dir.str() + "' --rules kalah --pits 6");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no table"), std::string::npos) << r.err;
}

TEST(StatsCommand, MissingDatabaseIsAOneLineError) {
  TempDir missing("stats_missing");
  const test::CliResult r = kalah("stats --db '" + missing.str() + "'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no database at " + missing.str()), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace kalah
