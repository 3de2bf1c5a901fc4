// The one load policy: kAuto decodes a table only when the work reaches far enough beyond it and
// the decoded table fits; kCache and kMemory are what they say; the names parse or fail clearly.
#include <gtest/gtest.h>

#include <stdexcept>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "db/table_load.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::TempDir;

constexpr TableId kTable{Rules::kWetherell, 2};
constexpr int kTop = 10;

struct TenStoneTable {
  TempDir dir{"table_load"};
  std::unique_ptr<Store> store;
  TenStoneTable() {
    {
      Store w(dir.str(), true);
      const LevelIndex idx(2, kTop);
      for (int n = 0; n <= kTop; ++n) w.write_level(kTable, n, test::pits_level(idx, n));
    }
    store = std::make_unique<Store>(dir.str(), false);
  }
};

TEST(TableLoad, AutoDecodesOnlyWhenTheWorkReachesFarEnoughAndTheTableFits) {
  const TenStoneTable db;
  const std::uint64_t bytes = Probe::resident_bytes(*db.store, kTable);
  ASSERT_GT(bytes, 0u);
  const std::size_t room = bytes;  // exactly enough
  // Closer than kDecodeBeyond stones beyond the table: the cache, and the size is not asked.
  TableLoadChoice c =
      resolve_table_load(TableLoad::kAuto, *db.store, kTable, -1, room, kTop + kDecodeBeyond - 1);
  EXPECT_EQ(c.load, TableLoad::kCache);
  EXPECT_FALSE(c.by_size);
  // Far enough and it fits: decoded, by its size.
  c = resolve_table_load(TableLoad::kAuto, *db.store, kTable, -1, room, kTop + kDecodeBeyond);
  EXPECT_EQ(c.load, TableLoad::kMemory);
  EXPECT_TRUE(c.by_size);
  EXPECT_EQ(c.decoded_bytes, bytes);
  // Far enough but one byte short: the cache, by its size.
  c = resolve_table_load(TableLoad::kAuto, *db.store, kTable, -1, room - 1, kReachesEverywhere);
  EXPECT_EQ(c.load, TableLoad::kCache);
  EXPECT_TRUE(c.by_size);
  // Fewer levels used: the reach counts from the levels used, and they take fewer bytes.
  c = resolve_table_load(TableLoad::kAuto, *db.store, kTable, 4, room - 1, 4 + kDecodeBeyond);
  EXPECT_EQ(c.load, TableLoad::kMemory);
  EXPECT_LT(c.decoded_bytes, bytes);
}

TEST(TableLoad, CacheAndMemoryAreWhatTheySayWhateverTheReachOrSize) {
  const TenStoneTable db;
  EXPECT_EQ(resolve_table_load(TableLoad::kMemory, *db.store, kTable, -1, 0, 0).load,
            TableLoad::kMemory);
  EXPECT_EQ(resolve_table_load(TableLoad::kCache, *db.store, kTable, -1, std::size_t(1) << 40,
                               kReachesEverywhere)
                .load,
            TableLoad::kCache);
  // A probe holds the table as resolved; kAuto must be resolved first.
  EXPECT_TRUE(Probe(*db.store, kTable, 1 << 20, TableLoad::kMemory).resident());
  EXPECT_FALSE(Probe(*db.store, kTable, 1 << 20, TableLoad::kCache).resident());
  EXPECT_THROW(Probe(*db.store, kTable, 1 << 20, TableLoad::kAuto), std::invalid_argument);
}

TEST(TableLoad, NamesParseAndAnythingElseIsAnErrorNamingTheOption) {
  EXPECT_EQ(parse_table_load("auto"), TableLoad::kAuto);
  EXPECT_EQ(parse_table_load("cache"), TableLoad::kCache);
  EXPECT_EQ(parse_table_load("memory"), TableLoad::kMemory);
  try {
    parse_table_load("all", "--db-load");
    FAIL() << "'all' parsed";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--db-load must be auto, memory or cache, not 'all'");
  }
}

}  // namespace
}  // namespace kalah
