// The stored layout: resident levels packed on threads, the storage order, and the database
// bytes as db/FORMAT.md describes them.
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
