// Tables of format 2 (blocks not bound to their place): refused by probes and by gen with a
// message saying how to upgrade, read by verify and stats with their format's checks, and bound
// by `kalah verify --upgrade` only when every check passes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/format.hpp"
#include "db/level_stats.hpp"
#include "db/probe.hpp"
#include "db/store.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/old_format.hpp"

namespace kalah {
namespace {

using test::error_of;
using test::TempDir;

constexpr TableId kK3{Rules::kKalah, 3};
constexpr TableId kW3{Rules::kWetherell, 3};
// A table written by the program of format 2: kalah m=3, levels 0..10, a book of 12 positions
// (`kalah gen --rules kalah --pits 3 --max-stones 10`, then `kalah solve --rules kalah --book
// --book-plies 2 "2,2,2,0/2,2,3,0 S"`), as mdb_dump printed it.
const std::string kFixture = std::string(KALAH_VECTORS_DIR) + "/format2-kalah-m3.dump";

test::CliResult kalah(const std::string& args) {
  return test::run_cli("KALAH " + args);
}

// Levels 0..top of t, built by this program's generator into `path`.
void build(const std::string& path, TableId t, int top) {
  Store store(path, true);
  BuildOptions o;
  o.table = t;
  o.max_stones = top;
  o.threads = 2;
  build_database(store, o);
}

TEST(OldFormat, ProbesAndReadsRefuseItSayingHowToUpgrade) {
  TempDir dir("old_format_refused");
  test::load_dump(dir.str(), kFixture);
  Store store(dir.str(), false);
  ASSERT_EQ(store.complete_through(kK3), 10);
  EXPECT_EQ(store.level_meta(kK3, 10)->format_version, 2u);
  EXPECT_FALSE(store.level_meta(kK3, 10)->bound());
  const std::string upgrade = "`kalah verify --upgrade --db " + dir.str() + "`";
  for (const TableLoad load : {TableLoad::kCache, TableLoad::kMemory}) {
    const std::string e = error_of([&] { Probe(store, kK3, 1 << 20, load); });
    EXPECT_NE(e.find("level 0 was written by format 2"), std::string::npos) << e;
    EXPECT_NE(e.find(upgrade), std::string::npos) << e;
  }
  std::vector<std::int8_t> v(level_entries(3, 10));
  EXPECT_NE(error_of([&] { store.read_level(kK3, 10, v); }).find(upgrade), std::string::npos);
  std::vector<std::int8_t> block;
  EXPECT_NE(error_of([&] { store.read_block(kK3, 10, 0, block); }).find(upgrade),
            std::string::npos);
  // The book is as format 2 wrote it, and read.
  EXPECT_EQ(store.book_size(kK3).entries, 12u);
}

TEST(OldFormat, ReadWithItsChecksItsValuesAreTheGeneratorsAndBindingKeepsThem) {
  TempDir old_db("old_format_bind"), fresh("old_format_fresh");
  test::load_dump(old_db.str(), kFixture);
  build(fresh.str(), kK3, 10);
  const Store reference(fresh.str(), false);
  {
    Store store(old_db.str(), false);
    store.read_unbound_levels(true);
    for (int n = 0; n <= 10; ++n) {
      std::vector<std::int8_t> got(level_entries(3, n)), want(got.size());
      store.read_level(kK3, n, got);
      reference.read_level(kK3, n, want);
      EXPECT_EQ(got, want) << "level " << n;
    }
    const auto stats = level_stats(store, kK3);
    EXPECT_EQ(stats[10].format_version, 2u);
    EXPECT_TRUE(stats[10].damage.empty()) << stats[10].damage;
  }
  Store store(old_db.str(), true);
  const auto checksum = [&](int n) { return store.level_meta(kK3, n)->checksum; };
  // A level whose checksum is not the one checked was written again since: refused.
  EXPECT_NE(error_of([&] {
              store.bind_level(kK3, 10, checksum(10) ^ 1);
            }).find("level 10: written again since it was checked"),
            std::string::npos);
  for (int n = 0; n <= 10; ++n) EXPECT_TRUE(store.bind_level(kK3, n, checksum(n))) << n;
  for (int n = 0; n <= 10; ++n) {
    EXPECT_FALSE(store.bind_level(kK3, n, checksum(n))) << "bound already: level " << n;
    EXPECT_EQ(store.level_meta(kK3, n)->build, store.build());
    EXPECT_EQ(store.level_meta(kK3, n)->checksum, reference.level_meta(kK3, n)->checksum);
  }
  Probe probe(store, kK3, 1 << 20), want(reference, kK3, 1 << 20);
  const Position p = parse_position("1,2,0,0/3,1,2,0 S");
  EXPECT_EQ(probe.future(p), want.future(p));
  EXPECT_EQ(format::decode_header(test::read_raw(old_db.str()).at(std::string(1, '\0'))),
            format::kVersion);
}

// bind_level checks what the old format can: a block out of its order fails the level checksum,
// a damaged block its own checksum; the level is then left as it was.
TEST(OldFormat, BindingRefusesABlockOutOfPlaceOrDamagedAndChangesNothing) {
  for (const bool swap : {true, false}) {
    TempDir dir("old_format_misplaced");
    {
      StoreOptions o = test::fast_store();
      o.block_entries = 64;
      o.blocks_per_group = 2;
      Store store(dir.str(), true, o);
      const LevelIndex index(3, 9);
      for (int n = 0; n <= 9; ++n) store.write_level(kW3, n, test::pits_level(index, n));
    }
    test::rewrite_as_format2(dir.str());
    auto records = test::read_raw(dir.str());
    const std::string g0(format::group_key(kW3, 9, 0).view()),
        g1(format::group_key(kW3, 9, 1).view());
    if (swap) {
      std::swap(records.at(g0), records.at(g1));
    } else {
      records.at(g1)[records.at(g1).size() - 3] ^= 1;
    }
    test::edit_raw(dir.str(), g0, records.at(g0));
    test::edit_raw(dir.str(), g1, records.at(g1));
    const auto before = test::read_raw(dir.str());
    {
      Store store(dir.str(), true);
      const std::string e =
          error_of([&] { store.bind_level(kW3, 9, store.level_meta(kW3, 9)->checksum); });
      EXPECT_NE(e.find(swap ? "level 9: level checksum mismatch" : "level 9 block 3: corrupt"),
                std::string::npos)
          << e;
      EXPECT_FALSE(store.level_meta(kW3, 9)->bound());
      EXPECT_TRUE(store.bind_level(kW3, 8, store.level_meta(kW3, 8)->checksum));
    }
    auto after = test::read_raw(dir.str());
    for (const auto& [key, value] : before) {
      if (key[0] != format::kGroup || key[3] != 9) continue;
      EXPECT_EQ(after.at(key), value);
    }
  }
}

// The commands: query, gen and solve refuse the old table in one line saying how to upgrade,
// serve each query of it; stats and verify read it and say so; verify --upgrade binds it, after
// which every command reads it.
TEST(OldFormat, VerifyUpgradeBindsATableEveryCommandThenReads) {
  TempDir dir("old_format_cli"), fresh("old_format_cli_fresh");
  test::load_dump(dir.str(), kFixture);
  build(fresh.str(), kK3, 10);
  const std::string db = " --db " + dir.str(), position = " '1,2,0,0/3,1,2,0 S' --json";
  const std::string upgrade = "`kalah verify --upgrade --db " + dir.str() + "`";
  for (const std::string& command :
       {"query --rules kalah" + position,
        std::string("gen --rules kalah --pits 3 --max-stones 11 --quiet"),
        std::string("solve --rules kalah --pits 3 --stones 2 --quiet")}) {
    const test::CliResult r = test::run_cli("timeout 60 KALAH " + command + db);
    EXPECT_EQ(r.status, 1) << command << ": " << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1) << command << ": " << r.err;
    EXPECT_TRUE(test::contains(r.err, upgrade)) << command << ": " << r.err;
  }
  // kalah serve starts (its other tables, if any, are served) and answers the table's queries
  // with 500 and the same line.
  const std::string script = test::temp_path("old_format_serve");
  std::ofstream(script) << R"(import http.client, subprocess, sys, urllib.parse
server = subprocess.Popen([sys.argv[1], "serve", "--db", sys.argv[2], "--port", "0"],
                          stdout=subprocess.PIPE, text=True)
port = int(server.stdout.readline().split("127.0.0.1:")[1].split("/")[0])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
c.request("GET", "/api/v1/query?" + urllib.parse.urlencode({"rules": "kalah",
                                                            "position": sys.argv[3]}))
r = c.getresponse()
print(r.status, r.read().decode())
server.terminate()
server.wait()
)";
  const test::CliResult served = test::run_cli("timeout 60 python3 " + script + " KALAH " +
                                               dir.str() + " '1,2,0,0/3,1,2,0 S'");
  EXPECT_EQ(served.status, 0) << served.err;
  EXPECT_TRUE(test::contains(served.out, "500 ")) << served.out;
  EXPECT_TRUE(test::contains(served.out, "verify --upgrade --db " + dir.str())) << served.out;
  std::remove(script.c_str());
  const test::CliResult stats = kalah("stats" + db);
  EXPECT_EQ(stats.status, 0) << stats.err;
  EXPECT_TRUE(test::contains(stats.out, "not bound to their place: levels 0..10 (format 2)"))
      << stats.out;
  const test::CliResult verify = kalah("verify --quiet" + db);
  EXPECT_EQ(verify.status, 0) << verify.out << verify.err;
  EXPECT_TRUE(test::contains(verify.out,
                             "level 10:           3,003 entries, checksum ok, 3,003 "
                             "checked, 0 wrong, format 2: not bound"))
      << verify.out;
  EXPECT_TRUE(test::contains(verify.out, "levels 0..10: not bound to their place")) << verify.out;
  EXPECT_TRUE(test::contains(verify.out, "book: 12 entries, 12 checked, 0 wrong")) << verify.out;

  const test::CliResult up = kalah("verify --upgrade --quiet" + db);
  EXPECT_EQ(up.status, 0) << up.out << up.err;
  EXPECT_TRUE(test::contains(up.out, "upgraded: levels 0..10 bound to their place (build "))
      << up.out;
  const test::CliResult query = kalah("query --rules kalah" + position + db);
  EXPECT_EQ(query.status, 0) << query.err;
  EXPECT_EQ(query.out, kalah("query --rules kalah" + position + " --db " + fresh.str()).out);
  EXPECT_TRUE(test::contains(kalah("stats" + db).out, "written by: levels 0..10 by build "));
  const test::CliResult again = kalah("verify --upgrade --quiet" + db);
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_TRUE(test::contains(again.out, "every level is bound to its place already")) << again.out;
  EXPECT_EQ(kalah("gen --rules kalah --pits 3 --max-stones 11 --quiet" + db).status, 0);
}

// A table of format 2 whose values are wrong though every checksum holds (a whole level moved to
// another table): verify --upgrade finds the values, binds nothing and exits 1.
TEST(OldFormat, VerifyUpgradeBindsNothingOfATableWithWrongValues) {
  TempDir dir("old_format_wrong");
  build(dir.str(), kK3, 8);
  build(dir.str(), kW3, 8);
  test::rewrite_as_format2(dir.str());
  auto r = test::read_raw(dir.str());
  std::map<std::string, std::optional<std::string>> edits;
  for (const auto& [key, value] : r) {
    if ((key[0] != format::kLevel && key[0] != format::kGroup) || key[3] != 8) continue;
    std::string other = key;
    other[1] = char(
        format::rules_code(key[1] == char(format::rules_code(kK3.rules)) ? kW3.rules : kK3.rules));
    edits[other] = value;
  }
  test::edit_raw(dir.str(), edits);
  const test::CliResult up = kalah("verify --upgrade --quiet --rules kalah --db " + dir.str());
  EXPECT_EQ(up.status, 1) << up.out;
  EXPECT_TRUE(test::contains(up.out, "wrong: ")) << up.out;
  EXPECT_TRUE(test::contains(up.out, "upgrade: FAILED: levels 0..8 not bound")) << up.out;
  Store store(dir.str(), false);
  for (int n = 0; n <= 8; ++n) EXPECT_FALSE(store.level_meta(kK3, n)->bound());
}

TEST(OldFormat, VerifyUpgradeAppliesOnlyToTheWholeTableCheck) {
  for (const char* mode : {"--engine", "--resolve 10", "--sample 1000"}) {
    const test::CliResult r = kalah(std::string("verify --upgrade ") + mode);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
    EXPECT_TRUE(test::contains(r.err, "--upgrade")) << r.err;
  }
}

// verify --engine and --resolve answer values from the table: they refuse a format-2 one.
TEST(OldFormat, VerifyEngineAndResolveRefuseIt) {
  TempDir dir("old_format_engine");
  test::load_dump(dir.str(), kFixture);
  for (const char* mode : {"--engine --positions 10 --depth 2", "--resolve 5"}) {
    const test::CliResult r = kalah(std::string("verify --quiet ") + mode + " --db " + dir.str());
    EXPECT_EQ(r.status, 1) << mode << ": " << r.out << r.err;
    EXPECT_TRUE(test::contains(r.err, "was written by format 2")) << mode << ": " << r.err;
  }
}

TEST(OldFormat, VerifyUpgradeOfNoDatabaseCreatesNone) {
  const std::string path = test::fresh_path("old_format_none");
  const test::CliResult r = kalah("verify --upgrade --db " + path);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(test::contains(r.err, "no database at " + path)) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace kalah
