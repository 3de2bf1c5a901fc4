// Store against damage: a flipped byte in a block, met by reads, probes and search threads;
// reads in storage order and in parallel hand over every block once.
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
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::error_of;
using test::small_blocks;
using test::TempDir;

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

}  // namespace
}  // namespace kalah
