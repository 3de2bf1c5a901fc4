// Store: level round trips, completion tracking, rewriting, tables, book, corruption and errors.
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

#include "block_codec.hpp"
#include "cli_run.hpp"
#include "db_test_util.hpp"
#include "format.hpp"
#include "probe.hpp"
#include "resident_level.hpp"
#include "storage_order.hpp"
#include "store.hpp"
#include "xxhash64.hpp"

namespace kalah {
namespace {

using test::error_of;
using test::TempDir;

constexpr TableId kW2{Rules::kWetherell, 2};
constexpr TableId kW3{Rules::kWetherell, 3};
constexpr TableId kK2{Rules::kKalah, 2};

StoreOptions small_blocks(std::uint32_t block_entries) {
  StoreOptions o;
  o.block_entries = block_entries;
  o.zstd_level = 3;
  o.threads = 2;
  return o;
}

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

TEST(Store, DefaultOptionsRoundTripMultiBlockLevel) {
  TempDir dir("store_default");
  Store store(dir.str(), true);
  const auto v = test::random_level(level_entries(6, 7), 7, 3);  // 31824 entries
  store.write_level({Rules::kWetherell, 6}, 7, v);
  std::vector<std::int8_t> back(v.size());
  store.read_level({Rules::kWetherell, 6}, 7, back);
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

// Finds `needle` in data.mdb and flips one bit at needle_offset + delta.
void flip_in_file(const std::filesystem::path& file, const std::string& needle, std::size_t delta) {
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes.find(needle, at + 1), std::string::npos) << "needle not unique";
  bytes[at + delta] ^= 0x10;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The record of block group 0 of level n, read with plain LMDB.
std::string raw_group(const std::string& path, TableId t, int n) {
  MDB_env* env;
  MDB_txn* txn;
  MDB_dbi dbi;
  EXPECT_EQ(mdb_env_create(&env), 0);
  EXPECT_EQ(mdb_env_open(env, path.c_str(), MDB_RDONLY, 0664), 0);
  EXPECT_EQ(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn), 0);
  EXPECT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
  const auto key = format::group_key(t, n, 0);
  MDB_val k{key.size, const_cast<std::uint8_t*>(key.bytes.data())}, v;
  std::string group;
  if (mdb_get(txn, dbi, &k, &v) == 0) group.assign(static_cast<const char*>(v.mv_data), v.mv_size);
  mdb_txn_abort(txn);
  mdb_env_close(env);
  return group;
}

// Block b's bytes inside a group record, through its offset table (FORMAT.md).
std::string block_of(const std::string& group, std::uint32_t b) {
  const auto offset = [&](std::size_t i) { return format::get_le(group, 8 + 4 * i, 4); };
  return group.substr(offset(b), offset(b + 1) - offset(b));
}

// A damaged block met by a search on several threads (a position above the table, the table read
// block by block): every command that searches ends with one line naming the block and exit
// status 1, never a crash.
TEST(Store, ADamagedBlockMetBySearchThreadsIsAnErrorOfEveryCommand) {
  TempDir dir("store_threads");
  const std::string db = dir.str();
  ASSERT_EQ(
      test::run_cli("KALAH gen --pits 4 --max-stones 8 --threads 1 --quiet --db " + db).status, 0);
  const TableId t{Rules::kWetherell, 4};
  const std::string stored = block_of(raw_group(db, t, 8), 0);
  ASSERT_GT(stored.size(), 40u);
  flip_in_file(dir.path() / "data.mdb", stored, stored.size() / 2);
  const std::string beyond = " \"3,3,3,3,0/3,3,3,3,0 S\" --db-load cache --db " + db;
  // play --exact reads the table through the cache from up to 7 stones beyond it.
  const std::string play =
      "play --self --exact --no-random --position '2,2,2,2,0/2,2,2,1,0 S' --db " + db;
  for (const char* threads : {"2", "3"}) {
    for (const std::string& command : {"query" + beyond, "solve" + beyond, play}) {
      const test::CliResult r = test::run_cli("KALAH " + command + " --threads " + threads);
      const std::string where = command + " --threads " + std::string(threads) + ": " + r.err;
      EXPECT_EQ(r.status, 1) << where;
      EXPECT_NE(r.err.find("level 8 block 0"), std::string::npos) << where;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << where;
    }
  }
}

// A flipped bit anywhere in a stored block (header, checksum, zstd frame) is caught by
// read_level and by a probe of that block; other blocks still answer.
TEST(Store, FlippedByteIsDetectedByReadLevelAndProbe) {
  const TableId t{Rules::kWetherell, 3};
  const LevelIndex idx(3, 8);
  const auto level = test::pits_level(idx, 8);  // 1287 entries
  const auto storage_rank = test::naive_storage_ranks(3, 8);
  // Offsets into block 2's bytes: 0: the middle of the zstd frame; 1: stored-bytes checksum;
  // 9: entry count; 17: checksum of the values; 28: a zstd frame-header bit that decoders
  // ignore. -1: the group's offset table entry that ends block 2 (and starts block 3).
  for (int where : {0, 1, 9, 17, 28, -1}) {
    TempDir dir("store_flip");
    {
      Store store(dir.str(), true, small_blocks(256));
      for (int n = 0; n <= 8; ++n) store.write_level(t, n, test::pits_level(idx, n));
    }
    const std::string group = raw_group(dir.str(), t, 8);
    ASSERT_EQ(format::get_le(group, 0, 4), 6u);  // blocks 0..5 in one group record
    const std::string stored = block_of(group, 2);
    ASSERT_GT(stored.size(), 40u);
    if (where >= 0) {
      const std::size_t delta = where == 0 ? stored.size() / 2 : std::size_t(where);
      flip_in_file(dir.path() / "data.mdb", stored, delta);
    } else {  // group header and offset table; offset 3 ends block 2 and starts block 3
      flip_in_file(dir.path() / "data.mdb", group.substr(0, 8 + 4 * 7), 8 + 4 * 3);
    }

    Store store(dir.str(), false);
    std::vector<std::int8_t> out(level.size());
    const std::string e = error_of([&] { store.read_level(t, 8, out); });
    EXPECT_NE(e.find("level 8 block 2"), std::string::npos) << e << " (flip case " << where << ")";

    // A resident probe reads every block up front: the whole load is refused, naming the block.
    const std::string resident_error = error_of([&] { Probe(store, t, 0, TableLoad::kMemory); });
    EXPECT_NE(resident_error.find("level 8 block 2"), std::string::npos)
        << resident_error << " (flip case " << where << ")";
    // So is a parallel scan, whatever the threads.
    for (unsigned threads : {1u, 3u}) {
      const std::string scan_error = error_of([&] {
        store.scan_level_parallel(t, 8, threads,
                                  [](std::uint64_t, std::span<const std::int8_t>) {});
      });
      EXPECT_NE(scan_error.find("level 8 block 2"), std::string::npos)
          << scan_error << " (flip case " << where << ")";
    }

    Probe probe(store, t, 1 << 20);
    std::vector<Stones> x(6, 0);
    idx.unrank(0, 8, x.data());
    std::uint64_t r = 0;
    do {
      Position p;
      p.m = 3;
      for (int i = 0; i < 3; ++i) {
        p.own_pit(i) = x[i];
        p.opp_pit(i) = x[3 + i];
      }
      const std::uint64_t block = storage_rank.at(x) / 256;
      if (block == 2 || (where < 0 && block == 3)) {
        EXPECT_THROW(probe.future(p), DbError) << "rank " << r;
      } else {
        EXPECT_EQ(probe.future(p), level[r]) << "rank " << r;
      }
      ++r;
    } while (idx.next(x.data()));
  }
}

// read_level_stored puts each value at its storage rank, on any number of threads.
TEST(Store, ReadLevelStoredIsInStorageOrder) {
  const TableId t{Rules::kKalah, 3};
  const LevelIndex idx(3, 9);
  TempDir dir("store_stored");
  Store store(dir.str(), true, small_blocks(64));
  for (int n = 0; n <= 9; ++n) store.write_level(t, n, test::pits_level(idx, n));
  const auto level = test::pits_level(idx, 9);
  const auto storage_rank = test::naive_storage_ranks(3, 9);
  for (unsigned threads : {1u, 2u, 5u}) {
    std::vector<std::int8_t> stored(level.size(), 99);
    store.read_level_stored(t, 9, stored, threads);
    std::vector<Stones> x(6, 0);
    idx.unrank(0, 9, x.data());
    std::uint64_t r = 0;
    do ASSERT_EQ(stored[storage_rank.at(x)], level[r++]) << "threads " << threads;
    while (idx.next(x.data()));
  }
  std::vector<std::int8_t> wrong_size(level.size() + 1);
  EXPECT_NE(error_of([&] { store.read_level_stored(t, 9, wrong_size); }).find("needs room for"),
            std::string::npos);
}

// scan_level_parallel hands every block over exactly once, at its first storage rank, on any
// number of threads; a corrupt block stops it with the block named.
TEST(Store, ScanLevelParallelHandsOverEveryBlockOnce) {
  const TableId t{Rules::kKalah, 3};
  const LevelIndex idx(3, 9);
  TempDir dir("store_scan_parallel");
  Store store(dir.str(), true, small_blocks(64));
  for (int n = 0; n <= 9; ++n) store.write_level(t, n, test::pits_level(idx, n));
  std::vector<std::int8_t> stored(idx.size(9));
  store.read_level_stored(t, 9, stored, 1);
  for (unsigned threads : {1u, 2u, 5u}) {
    std::vector<int> seen(stored.size(), 0);
    std::mutex mutex;
    store.scan_level_parallel(t, 9, threads,
                              [&](std::uint64_t first, std::span<const std::int8_t> values) {
                                EXPECT_EQ(first % 64, 0u);
                                const std::lock_guard lock(mutex);
                                for (std::size_t i = 0; i < values.size(); ++i) {
                                  ++seen[first + i];
                                  EXPECT_EQ(values[i], stored[first + i]);
                                }
                              });
    for (std::size_t r = 0; r < seen.size(); ++r) ASSERT_EQ(seen[r], 1) << r;
  }
}

// pack_values: a level packed from ranges cut anywhere (inside a word, across words, one value),
// by several threads at once into zeroed words, equals the level packed in one call, and reads
// back every value; a value of the wrong parity is named with its rank.
TEST(ResidentLevel, PackedFromRangesOnThreadsEqualsOnePacking) {
  const int n = 9;
  std::mt19937 rng(7);
  std::vector<std::int8_t> values(5000);
  for (auto& v : values) v = std::int8_t(2 * int(rng() % (n + 1)) - n);
  const std::uint64_t words = ResidentLevel::words_for(true, values.size());
  std::vector<std::uint64_t> whole(words, 0);
  pack_values(values, 0, n, whole.data(), "whole");
  const ResidentLevel level{whole.data(), n, true};
  for (std::size_t r = 0; r < values.size(); ++r) ASSERT_EQ(level.future(r), values[r]) << r;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [begin, end)
  for (std::uint64_t begin = 0; begin < values.size();) {
    const std::uint64_t end = std::min<std::uint64_t>(values.size(), begin + 1 + rng() % 40);
    ranges.emplace_back(begin, end);
    begin = end;
  }
  std::shuffle(ranges.begin(), ranges.end(), rng);
  std::vector<std::uint64_t> pieces(words, 0);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < ranges.size();) {
      const auto [begin, end] = ranges[i];
      pack_values(std::span<const std::int8_t>(values).subspan(begin, end - begin), begin, n,
                  pieces.data(), "pieces");
    }
  };
  std::thread other(work);
  work();
  other.join();
  EXPECT_EQ(pieces, whole);
  values[1234] = std::int8_t(values[1234] == n ? n - 1 : values[1234] + 1);
  std::vector<std::uint64_t> bad(words, 0);
  const std::string what = error_of([&] {
    pack_values(std::span<const std::int8_t>(values).subspan(1200, 100), 1200, n, bad.data(),
                "level 9");
  });
  EXPECT_NE(what.find("level 9: value"), std::string::npos) << what;
  EXPECT_NE(what.find("rank 1234"), std::string::npos) << what;
}

// StorageOrder against FORMAT.md's definition, computed naively by sorting.
TEST(StorageOrder, MatchesTheDocumentedOrderAndIsABijection) {
  for (int m = 1; m <= 3; ++m) {
    const StorageOrder order(m, 7);
    for (int n = 0; n <= 7; ++n) {
      const auto naive = test::naive_storage_ranks(m, n);
      ASSERT_EQ(order.size(n), naive.size());
      std::vector<Stones> x(2 * m), y(2 * m);
      order.unrank(0, n, x.data());
      std::uint64_t r = 0;
      do {
        ASSERT_EQ(naive.at(x), r) << "m=" << m << " n=" << n;
        ASSERT_EQ(order.rank(x.data(), n), r);
        order.unrank(r, n, y.data());
        ASSERT_EQ(x, y);
        ++r;
      } while (order.next(x.data()));
      EXPECT_EQ(r, naive.size());
    }
  }
}

// Byte i of s, and the little-endian number of `bytes` bytes from byte i.
unsigned u8(std::string_view s, std::size_t i) {
  return unsigned(std::uint8_t(s[i]));
}
std::uint64_t le(std::string_view s, std::size_t i, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = v << 8 | u8(s, i + k);
  return v;
}

// Reads a database with plain LMDB and zstd, following db/FORMAT.md only.
TEST(Format, DatabaseBytesFollowFormatMd) {
  TempDir dir("store_format");
  const TableId t{Rules::kKalah, 2};  // rule-set code 1
  const LevelIndex idx(2, 6);
  {
    StoreOptions o = small_blocks(8);
    o.blocks_per_group = 3;  // several groups, a partial last one
    Store store(dir.str(), true, o);
    for (int n = 0; n <= 6; ++n) store.write_level(t, n, test::pits_level(idx, n));
    store.put_book(t, {{{1, 2, 3, 300}, -5}});
  }
  const std::map<std::string, std::string> db = test::read_raw(dir.str());
  using namespace std::string_literals;
  // Header: magic, version 3, reserved.
  EXPECT_EQ(db.at("\x00"s), "KALAHDB\0"s + "\x03\0\0\0"s + "\0\0\0\0"s);
  // Table record: version, rules, m, N (int16 LE).
  EXPECT_EQ(db.at("\x01\x01\x02"s), "\x03\0\0\0\x01\x02\x06\0"s);
  // Book: pits as uint16 BE; margin int16 LE, then XXH64 of the key and the margin's bytes.
  const std::string book_key = "\x04\x01\x02\0\x01\0\x02\0\x03\x01\x2c"s;
  const std::string book = db.at(book_key);
  ASSERT_EQ(book.size(), 10u);
  EXPECT_EQ(book.substr(0, 2), "\xfb\xff"s);
  EXPECT_EQ(le(book, 2, 8), xxh64((book_key + book.substr(0, 2)).data(), book_key.size() + 2));
  std::size_t records = 3;
  for (int n = 0; n <= 6; ++n) {
    const std::string level_key = "\x02\x01\x02"s + char(n);
    const std::string level = db.at(level_key);
    ASSERT_EQ(level.size(), 64u);
    const std::uint64_t entries = le(level, 0, 8);
    EXPECT_EQ(entries, idx.size(n));
    EXPECT_EQ(le(level, 16, 4), 3u);  // format version
    EXPECT_EQ(le(level, 20, 4), 8u);  // block entries
    const std::uint64_t blocks = le(level, 32, 4);
    EXPECT_EQ(blocks, (entries + 7) / 8);
    EXPECT_EQ(le(level, 36, 4), 3u);  // blocks per group
    EXPECT_EQ(u8(level, 40), 1u);     // complete
    EXPECT_EQ(u8(level, 41), 1u);     // codec
    EXPECT_EQ(le(level, 43, 5), 0u);  // reserved
    const std::uint64_t build = le(level, 48, 8);
    EXPECT_NE(build, 0u);
    // The record's checksum covers its key and its bytes before the checksum.
    EXPECT_EQ(le(level, 56, 8), xxh64((level_key + level.substr(0, 56)).data(), 3 + 1 + 56));
    const auto storage_rank = test::naive_storage_ranks(2, n);
    std::vector<std::int8_t> stored(entries);
    std::string sums;
    std::uint64_t bytes = 0;
    const std::uint64_t groups = (blocks + 2) / 3;
    for (std::uint32_t g = 0; g < groups; ++g) {
      const std::string key =
          "\x03\x01\x02"s + char(n) + char(g >> 24) + char(g >> 16) + char(g >> 8) + char(g);
      bytes += db.at(key).size();
    }
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint32_t g = b / 3, j = b % 3;
      const std::string key =
          "\x03\x01\x02"s + char(n) + char(g >> 24) + char(g >> 16) + char(g >> 8) + char(g);
      const std::string group = db.at(key);
      const std::uint64_t k = std::min<std::uint64_t>(3, blocks - 3 * g);
      ASSERT_EQ(le(group, 0, 4), k);
      EXPECT_EQ(le(group, 4, 4), 0u);
      EXPECT_EQ(le(group, 8, 4), 8 + 4 * (k + 1));  // blocks start right after the table
      EXPECT_EQ(le(group, 8 + 4 * k, 4), group.size());
      const std::string v =
          group.substr(le(group, 8 + 4 * j, 4), le(group, 12 + 4 * j, 4) - le(group, 8 + 4 * j, 4));
      ASSERT_GE(v.size(), 24u);
      // The block's place (rule-set code, m, n, 0, block index LE, build LE), then its bytes.
      std::string place = "\x01\x02"s + char(n) + '\0';
      for (int i = 0; i < 4; ++i) place += char(b >> (8 * i));
      for (int i = 0; i < 8; ++i) place += char(build >> (8 * i));
      EXPECT_EQ(le(v, 0, 8), xxh64((place + v.substr(8)).data(), 16 + v.size() - 8));
      const std::uint64_t count = le(v, 8, 4);
      EXPECT_EQ(count, std::min<std::uint64_t>(8, entries - 8 * b));
      EXPECT_EQ(u8(v, 12), 1u);
      EXPECT_EQ(le(v, 13, 3), 0u);
      const std::size_t got =
          ZSTD_decompress(stored.data() + 8 * b, count, v.data() + 24, v.size() - 24);
      ASSERT_EQ(got, count);
      EXPECT_EQ(le(v, 16, 8), xxh64(stored.data() + 8 * b, count));
      sums += v.substr(16, 8);
    }
    records += 1 + groups;
    EXPECT_EQ(le(level, 24, 8), bytes);                           // stored bytes
    EXPECT_EQ(le(level, 8, 8), xxh64(sums.data(), sums.size()));  // level checksum
    for (const auto& [x, r] : storage_rank)
      ASSERT_EQ(stored[r], test::value_of_pits(x.data(), 4, n)) << "n=" << n << " r=" << r;
  }
  EXPECT_EQ(db.size(), records);  // nothing else is stored
}

}  // namespace
}  // namespace kalah
