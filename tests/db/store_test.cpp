// Store: level round trips, completion tracking, rewriting, tables, book, and errors.
#include <gtest/gtest.h>
#include <lmdb.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "db/block_codec.hpp"
#include "db/format.hpp"
#include "db/probe.hpp"
#include "db/resident_level.hpp"
#include "db/storage_order.hpp"
#include "db/store.hpp"
#include "db/xxhash64.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::error_of;
using test::small_blocks;
using test::TempDir;

constexpr TableId kW2{Rules::kWetherell, 2};
constexpr TableId kW3{Rules::kWetherell, 3};
constexpr TableId kK2{Rules::kKalah, 2};

// Naive binomial for level sizes.
std::uint64_t choose(int a, int b) {
  std::vector<std::vector<std::uint64_t>> c(a + 1, std::vector<std::uint64_t>(a + 1, 0));
  for (int i = 0; i <= a; ++i) {
    c[i][0] = 1;
    for (int j = 1; j <= i; ++j) c[i][j] = c[i - 1][j - 1] + (j < i ? c[i - 1][j] : 0);
  }
  return c[a][b];
}

// The wrappers pass data, length and seed through to libxxhash, and the stream is fed in any
// pieces: the digests equal XXH64's published values (seed 0 and 12345), whatever the split.
TEST(Xxh64, WrappersGiveXxh64sValuesForAnySeedAndSplit) {
  EXPECT_EQ(xxh64("", 0), 0xef46db3751d8e999ULL);
  EXPECT_EQ(xxh64("abc", 3), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(xxh64("a", 1, 12345), 0x747b860523d69ab6ULL);
  unsigned char p1000[1000];
  for (int i = 0; i < 1000; ++i) p1000[i] = (unsigned char)((i * 7) % 256);
  std::mt19937 rng(7);
  for (const std::uint64_t seed : {0ULL, 12345ULL}) {
    for (int trial = 0; trial < 10; ++trial) {
      Xxh64Stream s(seed);
      for (std::size_t pos = 0; pos < 1000;) {
        const std::size_t piece = std::min<std::size_t>(1000 - pos, rng() % 80);
        s.update(p1000 + pos, piece);
        pos += piece;
      }
      EXPECT_EQ(s.digest(), seed == 0 ? 0x25275608a9cfc168ULL : 0x29d23bd22e33513cULL);
    }
  }
}

// Level checksums of a fixed table as written by earlier releases (recorded before XXH64 came from
// libxxhash): databases written then still verify.
TEST(Xxh64, LevelChecksumsEqualThoseOfEarlierReleases) {
  TempDir dir("store_pinned_checksums");
  const TableId t{Rules::kKalah, 2};
  const LevelIndex idx(2, 9);
  Store store(dir.str(), true, small_blocks(8));
  const std::uint64_t pinned[] = {
      0x36979d78f232250aULL, 0xe8ea96573cc75f35ULL, 0xfd6b85571e210d48ULL, 0x4f5ba56fd5b1b161ULL,
      0x592fcc658993a16bULL, 0x4a2db437b210e607ULL, 0xe8b85c7499eb4f22ULL, 0x2705310a70f2eb8eULL,
      0x8567919969dac5baULL, 0x98cf456316a53705ULL};
  for (int n = 0; n <= 9; ++n) {
    store.write_level(t, n, test::pits_level(idx, n));
    EXPECT_EQ(store.level_meta(t, n)->checksum, pinned[n]) << "level " << n;
  }
}

TEST(Store, LevelEntriesAreBinomials) {
  for (int m = 1; m <= 6; ++m)
    for (int n = 0; n <= 20; ++n) EXPECT_EQ(level_entries(m, n), choose(n + 2 * m - 1, 2 * m - 1));
}

TEST(Store, RoundTripRandomAndStructuredLevels) {
  TempDir dir("store_rt");
  const LevelIndex idx3(3, 9);
  std::vector<std::vector<std::int8_t>> w2, w3;
  {
    Store store(dir.str(), true, small_blocks(37));  // many blocks, a partial last one
    for (int n = 0; n <= 12; ++n) {
      w2.push_back(test::random_level(level_entries(2, n), n, 100 + n));
      store.write_level(kW2, n, w2.back());
    }
    for (int n = 0; n <= 9; ++n) {
      w3.push_back(test::pits_level(idx3, n));
      store.write_level(kW3, n, w3.back());
    }
  }
  Store store(dir.str(), false);  // reopen read-only: everything came from disk
  EXPECT_EQ(store.complete_through(kW2), 12);
  EXPECT_EQ(store.complete_through(kW3), 9);
  for (int n = 0; n <= 12; ++n) {
    std::vector<std::int8_t> back(level_entries(2, n));
    store.read_level(kW2, n, back);
    EXPECT_EQ(back, w2[n]) << "n=" << n;
    const auto meta = store.level_meta(kW2, n);
    ASSERT_TRUE(meta);
    EXPECT_TRUE(meta->complete);
    EXPECT_EQ(meta->entries, w2[n].size());
    EXPECT_EQ(meta->block_entries, 37u);
    EXPECT_EQ(meta->blocks, (w2[n].size() + 36) / 37);
    EXPECT_EQ(meta->format_version, format::kVersion);
    EXPECT_GT(meta->compressed_bytes, meta->blocks * kBlockHeaderBytes);
  }
  for (int n = 0; n <= 9; ++n) {
    std::vector<std::int8_t> back(level_entries(3, n));
    store.read_level(kW3, n, back);
    EXPECT_EQ(back, w3[n]) << "n=" << n;
  }
  // scan_level hands over the blocks in storage order.
  std::vector<std::int8_t> scanned;
  std::uint64_t expect_first = 0;
  store.scan_level(kW3, 9, [&](std::uint64_t first, std::span<const std::int8_t> v) {
    EXPECT_EQ(first, expect_first);
    expect_first += v.size();
    scanned.insert(scanned.end(), v.begin(), v.end());
  });
  std::vector<std::int8_t> in_storage_order(w3[9].size());
  for (const auto& [x, r] : test::naive_storage_ranks(3, 9))
    in_storage_order[r] = std::int8_t(test::value_of_pits(x.data(), 6, 9));
  EXPECT_EQ(scanned, in_storage_order);
}

// Level 9 of 6 pits holds 167,960 values: two full blocks of the default 65,536 and a short one.
TEST(Store, DefaultOptionsRoundTripMultiBlockLevel) {
  TempDir dir("store_default");
  Store store(dir.str(), true);
  const TableId t{Rules::kWetherell, 6};
  const auto v = test::random_level(level_entries(6, 9), 9, 3);
  store.write_level(t, 9, v);
  const auto meta = store.level_meta(t, 9);
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->blocks, 3u);
  EXPECT_LT(meta->block_entries, v.size());
  std::vector<std::int8_t> back(v.size());
  store.read_level(t, 9, back);
  EXPECT_EQ(back, v);
}

TEST(Store, CompleteThroughFollowsGaps) {
  TempDir dir("store_gaps");
  Store store(dir.str(), true, small_blocks(16));
  EXPECT_EQ(store.complete_through(kW2), -1);
  store.write_level(kW2, 1, test::random_level(level_entries(2, 1), 1, 1));
  EXPECT_EQ(store.complete_through(kW2), -1);
  store.write_level(kW2, 0, test::random_level(1, 0, 0));
  EXPECT_EQ(store.complete_through(kW2), 1);
  store.write_level(kW2, 3, test::random_level(level_entries(2, 3), 3, 3));
  EXPECT_EQ(store.complete_through(kW2), 1);
  EXPECT_TRUE(store.level_meta(kW2, 3));
  EXPECT_FALSE(store.level_meta(kW2, 2));
  store.write_level(kW2, 2, test::random_level(level_entries(2, 2), 2, 2));
  EXPECT_EQ(store.complete_through(kW2), 3);
  EXPECT_EQ(store.complete_through(kK2), -1);
  EXPECT_EQ(store.complete_through(kW3), -1);
}

TEST(Store, RewritingReplacesTheLevel) {
  TempDir dir("store_rewrite");
  const auto a = test::random_level(level_entries(2, 8), 8, 1);
  const auto b = test::random_level(level_entries(2, 8), 8, 2);
  {
    Store store(dir.str(), true, small_blocks(10));
    for (int n = 0; n < 8; ++n)
      store.write_level(kW2, n, test::random_level(level_entries(2, n), n, n));
    store.write_level(kW2, 8, a);
    store.write_level(kW2, 8, b);
    std::vector<std::int8_t> back(b.size());
    store.read_level(kW2, 8, back);
    EXPECT_EQ(back, b);
    EXPECT_EQ(store.complete_through(kW2), 8);
  }
  // Rewrite with larger blocks: the old, smaller blocks must all be gone.
  Store store(dir.str(), true, small_blocks(50));
  store.write_level(kW2, 8, a);
  std::vector<std::int8_t> back(a.size());
  store.read_level(kW2, 8, back);
  EXPECT_EQ(back, a);
  EXPECT_EQ(store.level_meta(kW2, 8)->blocks, (a.size() + 49) / 50);
  EXPECT_EQ(store.complete_through(kW2), 8);
}

TEST(Store, TablesListsEveryTable) {
  TempDir dir("store_tables");
  Store store(dir.str(), true, small_blocks(64));
  EXPECT_TRUE(store.tables().empty());
  store.write_level(kW3, 0, std::vector<std::int8_t>{0});
  store.write_level(kK2, 0, std::vector<std::int8_t>{0});
  store.write_level(kW2, 0, std::vector<std::int8_t>{0});
  const auto t = store.tables();
  ASSERT_EQ(t.size(), 3u);
  // Key order: rule-set code, then m.
  EXPECT_EQ(t[0], kW2);
  EXPECT_EQ(t[1], kW3);
  EXPECT_EQ(t[2], kK2);
}

TEST(Store, BadWritesAreRejectedAndChangeNothing) {
  TempDir dir("store_badwrite");
  Store store(dir.str(), true, small_blocks(16));
  store.write_level(kW2, 0, std::vector<std::int8_t>{0});
  std::vector<std::int8_t> wrong_size(level_entries(2, 3) - 1, 0);
  EXPECT_NE(error_of([&] { store.write_level(kW2, 1, wrong_size); }).find("values"),
            std::string::npos);
  std::vector<std::int8_t> out_of_range(level_entries(2, 1), 0);
  out_of_range[2] = 2;  // level 1 allows [-1, 1]
  EXPECT_NE(error_of([&] { store.write_level(kW2, 1, out_of_range); }).find("outside"),
            std::string::npos);
  EXPECT_FALSE(store.level_meta(kW2, 1));
  EXPECT_EQ(store.complete_through(kW2), 0);
}

TEST(Store, BookRoundTrip) {
  TempDir dir("store_book");
  {
    Store store(dir.str(), true);
    EXPECT_EQ(store.book_size(kW2).entries, 0u);
    store.put_book(kW2, {{{1, 2, 3, 4}, 5}, {{0, 0, 0, 300}, -300}, {{9, 0, 0, 0}, 0}});
    store.put_book(kK2, {{{1, 2, 3, 4}, -7}});
    store.put_book(kW2, {{{1, 2, 3, 4}, 6}});  // overwrite
    EXPECT_THROW(store.put_book(kW2, {{{1, 2, 3}, 1}}), DbError);
  }
  Store store(dir.str(), false);
  const std::vector<Stones> a{1, 2, 3, 4}, b{0, 0, 0, 300}, c{9, 0, 0, 0}, absent{4, 3, 2, 1};
  EXPECT_EQ(store.get_book(kW2, a), 6);
  EXPECT_EQ(store.get_book(kW2, b), -300);
  EXPECT_EQ(store.get_book(kW2, c), 0);
  EXPECT_EQ(store.get_book(kW2, absent), std::nullopt);
  EXPECT_EQ(store.get_book(kK2, a), -7);
  EXPECT_EQ(store.get_book(kW3, std::vector<Stones>{1, 2, 3, 4, 5, 6}), std::nullopt);
  EXPECT_EQ(store.book_size(kW2).entries, 3u);
  EXPECT_EQ(store.book_size(kK2).entries, 1u);
  EXPECT_EQ(store.book_size(kW3).entries, 0u);
  // A book creates its table record, with no levels.
  EXPECT_EQ(store.tables().size(), 2u);
  EXPECT_EQ(store.complete_through(kW2), -1);
}

TEST(Store, MissingOrForeignPathsAreClearErrors) {
  TempDir dir("store_missing");
  std::string e = error_of([&] { Store s(dir.str(), false); });
  EXPECT_NE(e.find("no database at " + dir.str()), std::string::npos) << e;

  std::filesystem::create_directories(dir.path());
  e = error_of([&] { Store s(dir.str(), false); });
  EXPECT_NE(e.find("no database at " + dir.str()), std::string::npos) << e;

  {  // a data.mdb that is not LMDB
    std::ofstream(dir.path() / "data.mdb") << std::string(20000, 'x');
    e = error_of([&] { Store s(dir.str(), false); });
    EXPECT_NE(e.find(dir.str()), std::string::npos) << e;
    EXPECT_NE(e.find("not an LMDB"), std::string::npos) << e;
    std::filesystem::remove_all(dir.path());
  }
  {  // an LMDB environment written by someone else
    std::filesystem::create_directories(dir.path());
    MDB_env* env;
    MDB_txn* txn;
    MDB_dbi dbi;
    ASSERT_EQ(mdb_env_create(&env), 0);
    ASSERT_EQ(mdb_env_open(env, dir.str().c_str(), 0, 0664), 0);
    ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
    ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
    MDB_val k{3, const_cast<char*>("foo")}, v{3, const_cast<char*>("bar")};
    ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
    ASSERT_EQ(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
    for (bool writable : {false, true}) {
      e = error_of([&] { Store s(dir.str(), writable); });
      EXPECT_NE(e.find("not a kalah database"), std::string::npos) << e;
    }
  }
}

TEST(Store, AbsentLevelsAndTablesAreClearErrors) {
  TempDir dir("store_absent");
  {
    Store store(dir.str(), true, small_blocks(16));
    store.write_level(kW2, 0, std::vector<std::int8_t>{0});
  }
  Store store(dir.str(), false);
  std::vector<std::int8_t> out(level_entries(2, 1));
  const std::string e = error_of([&] { store.read_level(kW2, 1, out); });
  EXPECT_NE(e.find("wetherell m=2 level 1"), std::string::npos) << e;
  const std::string p = error_of([&] { Probe probe(store, kK2); });
  EXPECT_NE(p.find("no table kalah m=2"), std::string::npos) << p;
  EXPECT_NE(p.find("wetherell m=2"), std::string::npos) << p;
  EXPECT_THROW(store.write_level(kW2, 1, std::vector<std::int8_t>(4, 0)), DbError);  // read-only
}

// A table record claiming levels a table cannot hold is corrupt, not a level range to read.
TEST(Store, ATableRecordClaimingLevelsPast255IsCorrupt) {
  TempDir dir("store_through");
  {
    Store store(dir.str(), true, small_blocks(16));
    store.write_level(kW2, 0, std::vector<std::int8_t>{0});
  }
  for (const int through : {256, 32767, -2}) {
    std::string record = format::encode_table({kW2, 0});
    const std::uint16_t claimed = std::uint16_t(std::int16_t(through));
    std::memcpy(record.data() + 6, &claimed, 2);
    test::edit_raw(dir.str(), format::table_key(kW2).view(), record);
    const Store store(dir.str(), false);
    const std::string e = error_of([&] { (void)store.complete_through(kW2); });
    EXPECT_NE(e.find("corrupt table record of wetherell m=2"), std::string::npos) << through << e;
  }
}

TEST(Store, SecondOpenInOneProcessIsRefused) {
  TempDir dir("store_twice");
  Store a(dir.str(), true);
  EXPECT_NE(error_of([&] { Store b(dir.str(), false); }).find("already open"), std::string::npos);
}

// Map full in the middle of a level: DbError says so and the database is as before.
TEST(Store, MapFullAbortsTheLevelCleanly) {
  TempDir dir("store_full");
  StoreOptions o = small_blocks(4096);
  o.zstd_level = 1;
  o.map_size = 256 << 10;
  const TableId t{Rules::kWetherell, 6};
  std::vector<std::vector<std::int8_t>> small;
  {
    Store store(dir.str(), true, o);
    for (int n = 0; n <= 3; ++n) {
      small.push_back(test::random_level(level_entries(6, n), n, n));
      store.write_level(t, n, small.back());
    }
    // ~1.35M random values of ~4.6 bits: far more than the 256 KiB map.
    const auto big = test::random_level(level_entries(6, 12), 12, 12);
    store.write_level(t, 4, std::vector<std::int8_t>(level_entries(6, 4), 0));
    const std::string e = error_of([&] { store.write_level(t, 12, big); });
    EXPECT_NE(e.find("map full"), std::string::npos) << e;
    EXPECT_FALSE(store.level_meta(t, 12));
    EXPECT_EQ(store.complete_through(t), 4);
  }
  Store store(dir.str(), false);
  EXPECT_EQ(store.complete_through(t), 4);
  EXPECT_FALSE(store.level_meta(t, 12));
  for (int n = 0; n <= 3; ++n) {
    std::vector<std::int8_t> back(small[n].size());
    store.read_level(t, n, back);
    EXPECT_EQ(back, small[n]);
  }
}

}  // namespace
}  // namespace kalah
