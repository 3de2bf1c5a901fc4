// Probe: agrees with the stored values everywhere, from many threads, counts hits and misses.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::TempDir;

// Position with the given pits (side to move first) and arbitrary kalahs.
Position position_of(const Stones* x, int m, Stones own_kalah, Stones opp_kalah) {
  Position p;
  p.m = m;
  for (int i = 0; i < m; ++i) {
    p.own_pit(i) = x[i];
    p.opp_pit(i) = x[m + i];
  }
  p.own_kalah() = own_kalah;
  p.opp_kalah() = opp_kalah;
  return p;
}

// Every arrangement of levels 0..max_n of m pits (pits only, 2m cells each).
std::vector<std::vector<Stones>> all_arrangements(const LevelIndex& idx, int max_n) {
  std::vector<std::vector<Stones>> out;
  for (int n = 0; n <= max_n; ++n) {
    std::vector<Stones> x(idx.cells());
    idx.unrank(0, n, x.data());
    do out.push_back(x);
    while (idx.next(x.data()));
  }
  return out;
}

struct SmallDb {
  static constexpr TableId kTable{Rules::kWetherell, 2};
  static constexpr int kMaxN = 12;
  TempDir dir{"probe"};
  std::unique_ptr<Store> store;
  SmallDb() {
    {
      StoreOptions o;
      o.block_entries = 16;  // many blocks, partial last blocks
      o.zstd_level = 3;
      Store w(dir.str(), true, o);
      const LevelIndex idx(2, kMaxN);
      for (int n = 0; n <= kMaxN; ++n) w.write_level(kTable, n, test::pits_level(idx, n));
    }
    store = std::make_unique<Store>(dir.str(), false);
  }
};

TEST(Probe, AgreesWithTheValueOfEveryPosition) {
  SmallDb db;
  Probe probe(*db.store, SmallDb::kTable);
  EXPECT_EQ(probe.max_stones(), SmallDb::kMaxN);
  const LevelIndex idx(2, SmallDb::kMaxN);
  std::mt19937 rng(1);
  for (const auto& x : all_arrangements(idx, SmallDb::kMaxN)) {
    int n = 0;
    for (Stones s : x) n += s;
    const int expected = test::value_of_pits(x.data(), 4, n);
    const Stones k1 = Stones(rng() % 20), k2 = Stones(rng() % 20);
    Position p = position_of(x.data(), 2, k1, k2);
    ASSERT_EQ(probe.future(p), expected);
    EXPECT_EQ(probe.margin(p), int(k1) - int(k2) + expected);
    p.mover = Side::kNorth;  // who moves does not change the value of "the side to move"
    ASSERT_EQ(probe.future(p), expected);
  }
}

TEST(Probe, ResidentAgreesWithTheValueOfEveryPosition) {
  SmallDb db;
  Probe probe(*db.store, SmallDb::kTable, 0, TableLoad::kMemory, 2);
  EXPECT_TRUE(probe.resident());
  std::uint64_t positions = 0;
  const LevelIndex idx(2, SmallDb::kMaxN);
  for (const auto& x : all_arrangements(idx, SmallDb::kMaxN)) {
    int n = 0;
    for (Stones s : x) n += s;
    ASSERT_EQ(probe.future(position_of(x.data(), 2, 3, 1)), test::value_of_pits(x.data(), 4, n));
    ++positions;
  }
  std::uint64_t packed_bytes = 0;  // 12 five-bit values to a 64-bit word, per level
  for (int n = 0; n <= SmallDb::kMaxN; ++n) packed_bytes += (idx.size(n) + 11) / 12 * 8;
  EXPECT_LT(packed_bytes, positions);
  EXPECT_EQ(Probe::resident_bytes(*db.store, SmallDb::kTable), packed_bytes);
  const Stones many[4] = {5, 4, 3, 1};  // 13 stones > 12
  EXPECT_EQ(probe.future(position_of(many, 2, 0, 0)), std::nullopt);
  EXPECT_EQ(probe.misses(), 0u);  // nothing read after the load
}

// A probe limited to levels 0..k answers exactly what a table of k stones would: the positions of
// those levels, nothing above, and takes only their memory.
TEST(Probe, LimitedToLowerLevelsAnswersOnlyThem) {
  SmallDb db;
  constexpr int kLevels = 7;
  const LevelIndex idx(2, SmallDb::kMaxN);
  std::uint64_t packed_bytes = 0;
  for (int n = 0; n <= kLevels; ++n) packed_bytes += (idx.size(n) + 11) / 12 * 8;
  EXPECT_EQ(Probe::resident_bytes(*db.store, SmallDb::kTable, kLevels), packed_bytes);
  EXPECT_EQ(Probe::resident_bytes(*db.store, SmallDb::kTable, 200),
            Probe::resident_bytes(*db.store, SmallDb::kTable));
  for (const TableLoad load : {TableLoad::kMemory, TableLoad::kCache}) {
    Probe probe(*db.store, SmallDb::kTable, 1 << 20, load, 2, kLevels);
    EXPECT_EQ(probe.max_stones(), kLevels);
    for (const auto& x : all_arrangements(idx, SmallDb::kMaxN)) {
      int n = 0;
      for (Stones s : x) n += s;
      const std::optional<int> v = probe.future(position_of(x.data(), 2, 3, 1));
      if (n <= kLevels)
        ASSERT_EQ(v, test::value_of_pits(x.data(), 4, n));
      else
        ASSERT_EQ(v, std::nullopt) << n << " stones";
    }
  }
}

// Levels above 31 stones in pits do not fit 5 bits: a resident probe keeps them as bytes.
TEST(Probe, ResidentKeepsLevelsAbove31AsBytes) {
  constexpr TableId kTable{Rules::kKalah, 1};
  constexpr int kMaxN = 40;
  TempDir dir{"probe-wide"};
  const LevelIndex idx(1, kMaxN);
  {
    Store w(dir.str(), true);
    for (int n = 0; n <= kMaxN; ++n) w.write_level(kTable, n, test::pits_level(idx, n));
  }
  Store store(dir.str(), false);
  Probe probe(store, kTable, 0, TableLoad::kMemory, 2);
  std::uint64_t bytes = 0;
  for (int n = 0; n <= kMaxN; ++n) {
    bytes += n <= 31 ? (idx.size(n) + 11) / 12 * 8 : (idx.size(n) + 7) / 8 * 8;
    EXPECT_EQ(probe.resident_level(n).packed, n <= 31);
  }
  EXPECT_EQ(Probe::resident_bytes(store, kTable), bytes);
  for (const auto& x : all_arrangements(idx, kMaxN)) {
    const int n = x[0] + x[1];
    ASSERT_EQ(probe.future(position_of(x.data(), 1, 0, 0)), test::value_of_pits(x.data(), 2, n));
  }
}

// A stored value of the wrong parity cannot be a future margin: the resident load refuses the
// table, naming the level and the rank; the on-demand probe (which packs nothing) still reads it.
TEST(Probe, ResidentRefusesAValueOfTheWrongParity) {
  SmallDb db;
  const LevelIndex idx(2, SmallDb::kMaxN);
  std::vector<std::int8_t> level = test::pits_level(idx, 7);
  level[5] = std::int8_t(level[5] == 7 ? 6 : level[5] + 1);  // still within [-7, 7]
  {
    db.store.reset();
    Store w(db.dir.str(), true);
    w.write_level(SmallDb::kTable, 7, level);
  }
  db.store = std::make_unique<Store>(db.dir.str(), false);
  try {
    Probe(*db.store, SmallDb::kTable, 0, TableLoad::kMemory, 2);
    FAIL() << "a value of the wrong parity was packed";
  } catch (const DbError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("level 7"), std::string::npos) << what;
    EXPECT_NE(what.find("parity"), std::string::npos) << what;
  }
  Probe on_demand(*db.store, SmallDb::kTable);
  EXPECT_EQ(on_demand.max_stones(), SmallDb::kMaxN);
}

TEST(Probe, OtherBoardsAndLevelsAboveAreNotCovered) {
  SmallDb db;
  Probe probe(*db.store, SmallDb::kTable);
  const Stones six[6] = {1, 0, 0, 0, 0, 1};
  EXPECT_EQ(probe.future(position_of(six, 3, 0, 0)), std::nullopt);  // m=3 vs the m=2 table
  const Stones many[4] = {5, 4, 3, 1};                               // 13 stones > 12
  EXPECT_EQ(probe.future(position_of(many, 2, 0, 0)), std::nullopt);
  EXPECT_EQ(probe.margin(position_of(many, 2, 0, 0)), std::nullopt);
}

TEST(Probe, BookAnswersAboveTheLevels) {
  TempDir dir("probe_book");
  const TableId t{Rules::kKalah, 2};
  {
    Store w(dir.str(), true);
    w.write_level(t, 0, std::vector<std::int8_t>{0});
    w.put_book(t, {{{5, 4, 3, 1}, -3}});
  }
  Store store(dir.str(), false);
  Probe probe(store, t);
  EXPECT_EQ(probe.max_stones(), 0);
  const Stones in_book[4] = {5, 4, 3, 1}, not_in_book[4] = {1, 3, 4, 5};
  EXPECT_EQ(probe.future(position_of(in_book, 2, 7, 1)), -3);
  EXPECT_EQ(probe.future(position_of(not_in_book, 2, 0, 0)), std::nullopt);
}

TEST(Probe, CoversOnlyTheCompletePrefixOfLevels) {
  TempDir dir("probe_gap");
  const TableId t{Rules::kWetherell, 2};
  const LevelIndex idx(2, 4);
  {
    Store w(dir.str(), true);
    for (int n : {0, 1, 3, 4}) w.write_level(t, n, test::pits_level(idx, n));
  }
  Store store(dir.str(), false);
  Probe probe(store, t);
  EXPECT_EQ(probe.max_stones(), 1);
  const Stones three[4] = {1, 1, 1, 0};
  EXPECT_EQ(probe.future(position_of(three, 2, 0, 0)), std::nullopt);
}

// A level rewritten with another block size under a live probe: refused, never misread.
TEST(Probe, LevelRewrittenWithAnotherBlockSizeIsRefused) {
  TempDir dir("probe_rewrite");
  const TableId t{Rules::kWetherell, 2};
  const LevelIndex idx(2, 10);
  StoreOptions small;
  small.block_entries = 16;
  Store store(dir.str(), true, small);
  for (int n = 0; n <= 10; ++n) store.write_level(t, n, test::pits_level(idx, n));
  Probe probe(store, t);
  StoreOptions big;
  big.block_entries = 64;
  store.set_options(big);
  store.write_level(t, 10, test::pits_level(idx, 10));
  std::vector<Stones> x(4);
  idx.unrank(0, 10, x.data());
  EXPECT_THROW(probe.future(position_of(x.data(), 2, 0, 0)), DbError);
  idx.unrank(0, 9, x.data());  // untouched level: still answered
  EXPECT_EQ(probe.future(position_of(x.data(), 2, 0, 0)), test::value_of_pits(x.data(), 4, 9));
}

TEST(Probe, CountsHitsAndMisses) {
  SmallDb db;
  const int n = SmallDb::kMaxN;
  const LevelIndex idx(2, n);
  const std::uint64_t entries = idx.size(n);  // 455 = 28 full blocks of 16 + 7
  const std::uint64_t blocks = (entries + 15) / 16;
  Probe probe(*db.store, SmallDb::kTable, 64 << 20);
  std::vector<Stones> x(4);
  for (int pass = 0; pass < 2; ++pass) {
    idx.unrank(0, n, x.data());
    do probe.future(position_of(x.data(), 2, 0, 0));
    while (idx.next(x.data()));
    // Each block is read once, on its first probe; everything else is a hit.
    EXPECT_EQ(probe.misses(), blocks);
    EXPECT_EQ(probe.hits(), (pass + 1) * entries - blocks);
  }
  EXPECT_EQ(probe.cache().blocks(), blocks);
}

TEST(BlockCache, EvictsTheLeastRecentlyUsedBlockByBytes) {
  // One shard holding two 1000-byte blocks (plus bookkeeping), not three.
  BlockCache cache(2 * 1000 + 300, 1);
  int loads = 0;
  auto loader = [&](std::int8_t fill) {
    return [&loads, fill](std::vector<std::int8_t>& out) {
      ++loads;
      out.assign(1000, fill);
    };
  };
  EXPECT_EQ(cache.get(1, 5, loader(1)), 1);
  EXPECT_EQ(cache.get(2, 5, loader(2)), 2);
  EXPECT_EQ(cache.get(1, 6, loader(1)), 1);  // hit: 1 is now the most recent
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(cache.get(3, 0, loader(3)), 3);  // evicts 2
  EXPECT_EQ(cache.blocks(), 2u);
  EXPECT_EQ(cache.get(1, 0, loader(1)), 1);
  EXPECT_EQ(loads, 3);
  EXPECT_EQ(cache.get(2, 0, loader(2)), 2);  // was evicted: loaded again
  EXPECT_EQ(loads, 4);
  EXPECT_EQ(cache.hits(), 2u);
  EXPECT_EQ(cache.misses(), 4u);
  EXPECT_LE(cache.bytes(), 2 * 1000 + 300u);
  // A failed load caches nothing and propagates.
  EXPECT_THROW(cache.get(9, 0, [](std::vector<std::int8_t>&) { throw DbError("boom"); }), DbError);
  EXPECT_EQ(cache.blocks(), 2u);
}

TEST(Probe, CorrectFromManyThreadsWithATinyCache) {
  SmallDb db;
  Probe probe(*db.store, SmallDb::kTable, 4096);  // far fewer blocks than the table: evictions
  const LevelIndex idx(2, SmallDb::kMaxN);
  const auto all = all_arrangements(idx, SmallDb::kMaxN);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::size_t> order(all.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937(t));
      for (std::size_t i : order) {
        const auto& x = all[i];
        int n = 0;
        for (Stones s : x) n += s;
        if (probe.future(position_of(x.data(), 2, 0, 0)) != test::value_of_pits(x.data(), 4, n))
          ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(probe.hits() + probe.misses(), 4 * all.size());
  EXPECT_GT(probe.misses(), 0u);
}

}  // namespace
}  // namespace kalah
