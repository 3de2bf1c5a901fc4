// Database builds through the store: resumable, exact against minimax, verification catching
// damage, and clear errors for a wrong or missing database.
#include <gtest/gtest.h>

#include <lmdb.h>

#include <map>

#include "db/format.hpp"
#include "db/probe.hpp"
#include "engine/move.hpp"
#include "solver/retrograde/build.hpp"
#include "solver/retrograde/verify.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

using test::TempDir;

std::vector<std::uint64_t> checksums(const Store& s, TableId t) {
  std::vector<std::uint64_t> out;
  for (int n = 0; n <= s.complete_through(t); ++n) out.push_back(s.level_meta(t, n)->checksum);
  return out;
}

const std::vector<Rules> kAllRules = test::registered_rules();

// Every stored entry, probed through the database, equals plain minimax (kalahs at zero).
TEST(Build, StoredTablesEqualMinimaxOnSmallBoards) {
  for (Rules rules : kAllRules) {
    for (auto [m, n_max] : {std::pair{2, 9}, std::pair{3, 7}, std::pair{4, 5}}) {
      TempDir dir("build_exact");
      Store store(dir.str(), true, test::fast_store());
      build_database(store, {{rules, m}, n_max, 2});
      Probe probe(store, {rules, m}, 1 << 20);
      const LevelIndex index(m, n_max);
      test::ReferenceMinimax reference(rules);
      for (int n = 0; n <= n_max; ++n) {
        for (std::uint64_t r = 0; r < index.size(n); ++r) {
          const Position p = index.position(r, n);
          ASSERT_EQ(probe.future(p), reference.margin(p))
              << rules_name(rules) << " " << to_string(p);
        }
      }
    }
  }
}

// An interruption after any level, then a re-run, gives the same levels as one clean run.
TEST(Build, ResumeAfterInterruptionAtEveryLevelGivesIdenticalChecksums) {
  const TableId t{Rules::kWetherell, 3};
  const int top = 9;
  TempDir clean_dir("build_clean");
  Store clean(clean_dir.str(), true, test::fast_store());
  build_database(clean, {t, top, 2});
  const auto want = checksums(clean, t);
  ASSERT_EQ(int(want.size()), top + 1);
  for (int stop = 0; stop < top; ++stop) {
    TempDir dir("build_resume");
    {
      Store store(dir.str(), true, test::fast_store());
      BuildEvents ev;
      ev.after_commit = [&](int n) {
        if (n == stop) throw std::runtime_error("injected interruption");
      };
      EXPECT_THROW(build_database(store, {t, top, 2}, ev), std::runtime_error);
      EXPECT_EQ(store.complete_through(t), stop);
    }
    Store store(dir.str(), true, test::fast_store());
    const BuildReport r = build_database(store, {t, top, 2});
    EXPECT_EQ(r.first_built, stop + 1);
    EXPECT_EQ(checksums(store, t), want) << "stopped after level " << stop;
  }
}

TEST(Build, SameSizeIsANoOpAndLargerExtends) {
  const TableId t{Rules::kKalah, 2};
  TempDir dir("build_extend");
  Store store(dir.str(), true, test::fast_store());
  EXPECT_EQ(build_database(store, {t, 6, 1}).first_built, 0);
  const auto before = checksums(store, t);
  const BuildReport again = build_database(store, {t, 6, 1});
  EXPECT_EQ(again.first_built, -1);
  EXPECT_EQ(again.entries_built, 0u);
  const BuildReport more = build_database(store, {t, 8, 1});
  EXPECT_EQ(more.first_built, 7);
  const auto after = checksums(store, t);
  ASSERT_EQ(after.size(), 9u);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));
}

// A memory limit between the packed and the byte layouts' needs makes the build keep its levels
// packed; the stored table is the same, level checksum by level checksum, when a smaller build
// (in bytes: it fits) is resumed with the levels loaded and packed.
TEST(Build, PackedLevelsStoreTheSameTable) {
  for (Rules rules : kAllRules) {
    const TableId t{rules, 4};
    const int top = 12;
    const std::uint64_t bytes = build_memory_bytes(t.m, top, false);
    const std::uint64_t packed = build_memory_bytes(t.m, top, true);
    ASSERT_LT(packed, bytes);
    TempDir plain_dir("build_plain"), packed_dir("build_packed");
    Store plain(plain_dir.str(), true, test::fast_store());
    Store small(packed_dir.str(), true, test::fast_store());
    EXPECT_FALSE(build_database(plain, {t, top, 2}).packed);
    BuildOptions o{t, top - 3, 2, packed};
    EXPECT_FALSE(build_database(small, o).packed);
    o.max_stones = top;
    const BuildReport resumed = build_database(small, o);
    EXPECT_TRUE(resumed.packed);
    EXPECT_EQ(resumed.first_built, top - 2);
    EXPECT_EQ(checksums(small, t), checksums(plain, t)) << rules_name(rules);
  }
}

// A build that does not fit the limit even packed is refused before anything is written, naming
// the memory it needs, the limit and the largest table that fits.
TEST(Build, RefusesTooLittleMemoryNamingTheLargestTableThatFits) {
  TempDir dir("build_memory");
  Store store(dir.str(), true, test::fast_store());
  const TableId t{Rules::kKalah, 6};
  const std::uint64_t limit = std::uint64_t(100) << 20;
  try {
    build_database(store, {t, 20, 1, limit});
    FAIL() << "a build over the limit ran";
  } catch (const InputError& e) {
    const std::string what = e.what();
    const std::string key = "the largest table that fits is levels 0..";
    const std::size_t at = what.find(key);
    ASSERT_NE(at, std::string::npos) << what;
    const int fits = std::stoi(what.substr(at + key.size()));
    EXPECT_LE(build_memory_bytes(t.m, fits, true), limit) << what;
    EXPECT_GT(build_memory_bytes(t.m, fits + 1, true), limit) << what;
    EXPECT_NE(what.find("--memory-limit"), std::string::npos) << what;
    EXPECT_NE(what.find("100 MiB"), std::string::npos) << what;
  }
  EXPECT_EQ(store.complete_through(t), -1);
}

TEST(Build, RefusesOutOfRangeAndOversizedBuilds) {
  TempDir dir("build_bad");
  Store store(dir.str(), true, test::fast_store());
  EXPECT_THROW(build_database(store, {{Rules::kWetherell, 13}, 4, 1}), InputError);
  EXPECT_THROW(build_database(store, {{Rules::kWetherell, 6}, 128, 1}), InputError);
  EXPECT_THROW(build_database(store, {{Rules::kWetherell, 12}, 100, 1}), InputError);  // memory
  EXPECT_EQ(store.complete_through({Rules::kWetherell, 6}), -1);
}

// Rewrites one stored block with a flipped byte, through plain LMDB.
void damage_block(const std::string& path, TableId t, int n, std::uint32_t block) {
  MDB_env* env;
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_set_mapsize(env, std::size_t(1) << 30), 0);
  ASSERT_EQ(mdb_env_open(env, path.c_str(), 0, 0664), 0);
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
  const auto key = format::group_key(t, n, block);
  MDB_val k{key.size, const_cast<std::uint8_t*>(key.bytes.data())}, v;
  ASSERT_EQ(mdb_get(txn, dbi, &k, &v), 0);
  std::string bytes(static_cast<const char*>(v.mv_data), v.mv_size);
  bytes[bytes.size() - 3] ^= 0x04;
  MDB_val nv{bytes.size(), bytes.data()};
  ASSERT_EQ(mdb_put(txn, dbi, &k, &nv, 0), 0);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}

TEST(Verify, CleanDatabasePassesAndDamageIsReported) {
  const TableId t{Rules::kKalahEmptyCapture, 3};
  TempDir dir("verify");
  {
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {t, 8, 2});
    const VerifyReport full = verify_table(store, t, {});
    EXPECT_TRUE(full.ok());
    EXPECT_EQ(full.checked, table_entries(3, 8));
    VerifyOptions sampled;
    sampled.sample = 500;
    const VerifyReport some = verify_table(store, t, sampled);
    EXPECT_TRUE(some.ok());
    EXPECT_GE(some.checked, 400u);
  }
  damage_block(dir.str(), t, 7, 0);
  Store store(dir.str(), false);
  const VerifyReport r = verify_table(store, t, {});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.levels[6].checksum_ok);
  EXPECT_FALSE(r.levels[7].checksum_ok);
  EXPECT_NE(r.levels[7].error.find("level 7"), std::string::npos) << r.levels[7].error;
}

// The sampled check finds a wrong value whether the successors come from the table in memory or
// through the block cache, and on any number of threads: the entries drawn are the same.
TEST(Verify, SampleFindsAWrongValueInMemoryAndThroughTheCache) {
  const TableId t{Rules::kKalahEmptyCapture, 3};
  TempDir dir("verify-sample");
  Store store(dir.str(), true, test::fast_store());
  build_database(store, {t, 8, 2});
  std::vector<std::int8_t> level(level_entries(3, 5));
  store.read_level(t, 5, level);
  level[17] = std::int8_t(level[17] == 5 ? 3 : level[17] + 2);  // same parity, within [-5, 5]
  store.write_level(t, 5, level);
  std::uint64_t checked = 0, wrong = 0;
  for (const std::uint64_t memory : {std::uint64_t(1) << 30, std::uint64_t(0)}) {
    for (const int threads : {1, 2}) {
      VerifyOptions o;
      o.sample = table_entries(3, 8);  // every entry of every level
      o.threads = threads;
      o.sample_memory_bytes = memory;
      const VerifyReport r = verify_table(store, t, o);
      EXPECT_FALSE(r.ok());
      EXPECT_GE(r.levels[5].mismatches, 1u);
      EXPECT_EQ(r.levels[4].mismatches, 0u);
      EXPECT_FALSE(r.first_mismatches.empty());
      if (checked == 0) {
        checked = r.checked;
        wrong = r.mismatches;
      }
      EXPECT_EQ(r.checked, checked);
      EXPECT_EQ(r.mismatches, wrong);
    }
  }
  EXPECT_EQ(checked, table_entries(3, 8));
}

}  // namespace
}  // namespace kalah
