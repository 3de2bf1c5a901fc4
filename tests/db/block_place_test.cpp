// A stored block or level record moved, swapped, copied or restored from another build is an
// error naming it on every read path (read_level, scans, the block cache, the resident load).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/format.hpp"
#include "db/level_stats.hpp"
#include "db/probe.hpp"
#include "db/storage_order.hpp"
#include "db/store.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::error_of;
using test::TempDir;
using Records = std::map<std::string, std::string>;

constexpr TableId kW3{Rules::kWetherell, 3};
constexpr TableId kK3{Rules::kKalah, 3};
constexpr int kTop = 9;                  // levels 0..9; level 9: 2002 entries, 32 blocks, 11 groups
constexpr std::uint32_t kPerBlock = 64;  // values a block
constexpr std::uint32_t kPerGroup = 3;   // blocks a group record

StoreOptions options() {
  StoreOptions o = test::fast_store();
  o.block_entries = kPerBlock;
  o.blocks_per_group = kPerGroup;
  return o;
}

// The values of level n of table t: the two tables differ wherever a value is not 0, so a block of
// one read as the other's gives wrong values.
std::vector<std::int8_t> values(TableId t, int n) {
  std::vector<std::int8_t> v = test::pits_level(LevelIndex(3, kTop), n);
  if (t == kK3)
    for (auto& x : v) x = std::int8_t(-x);
  return v;
}

std::string key(const format::Key& k) {
  return std::string(k.view());
}

// Blocks of a group record, and a group record of blocks.
std::vector<std::string> blocks_of(const std::string& group) {
  const auto count = std::uint32_t(format::get_le(group, 0, 4));
  std::vector<std::string> out;
  for (std::uint32_t j = 0; j < count; ++j)
    out.emplace_back(*format::block_in_group(group, j, count));
  return out;
}
std::string group_of(const std::vector<std::string>& blocks) {
  return format::encode_group(blocks, 0, blocks.size());
}

// Block b of level n of t, and its record replaced by `stored` in `records`.
std::string block(const Records& records, TableId t, int n, std::uint32_t b) {
  return blocks_of(records.at(key(format::group_key(t, n, b / kPerGroup))))[b % kPerGroup];
}
void put_block(Records& records, TableId t, int n, std::uint32_t b, const std::string& stored) {
  std::string& group = records.at(key(format::group_key(t, n, b / kPerGroup)));
  std::vector<std::string> blocks = blocks_of(group);
  blocks[b % kPerGroup] = stored;
  group = group_of(blocks);
}

// A misplacement: the table and level it damages, and the blocks whose reads must fail, each
// naming itself ("level 9 block 4"); none: the level record must fail ("level 9: corrupt level
// record").
struct Case {
  TableId table;
  int n;
  std::vector<std::uint32_t> blocks;
};

std::vector<std::uint32_t> all_blocks() {
  std::vector<std::uint32_t> all;
  for (std::uint32_t b = 0; b < 32; ++b) all.push_back(b);
  return all;
}

// Writes both tables into `path` (the later build), after an earlier build whose level 9 of kW3
// had other values and whose records are returned.
Records write_tables(const std::string& path) {
  {
    Store earlier(path, true, options());
    std::vector<std::int8_t> other = values(kW3, kTop);
    for (std::size_t i = 0; i < other.size(); i += 7) other[i] = std::int8_t(-other[i]);
    earlier.write_level(kW3, kTop, other);
  }
  Records before = test::read_raw(path);
  Store store(path, true, options());
  for (const TableId t : {kW3, kK3})
    for (int n = 0; n <= kTop; ++n) store.write_level(t, n, values(t, n));
  return before;
}

// Applies case `name` to the records of a database; returns what the case expects.
Case misplace(const std::string& name, Records& r, const Records& earlier) {
  const auto swap = [&](const std::string& a, const std::string& b) {
    std::swap(r.at(a), r.at(b));
  };
  if (name == "two group records of a level swapped") {
    swap(key(format::group_key(kW3, 9, 1)), key(format::group_key(kW3, 9, 2)));
    return {kW3, 9, {3, 4, 5, 6, 7, 8}};
  }
  if (name == "two blocks of a group exchanged") {
    const std::string b0 = block(r, kW3, 9, 0), b1 = block(r, kW3, 9, 1);
    put_block(r, kW3, 9, 0, b1);
    put_block(r, kW3, 9, 1, b0);
    return {kW3, 9, {0, 1}};
  }
  if (name == "a block of level 8 over one of level 9") {
    put_block(r, kW3, 9, 4, block(r, kW3, 8, 4));
    return {kW3, 9, {4}};
  }
  if (name == "one group of two tables swapped") {
    swap(key(format::group_key(kW3, 9, 2)), key(format::group_key(kK3, 9, 2)));
    return {kK3, 9, {6, 7, 8}};
  }
  if (name == "a block copied over another of its level") {
    put_block(r, kW3, 9, 10, block(r, kW3, 9, 11));
    return {kW3, 9, {10}};
  }
  if (name == "a group restored from an earlier build") {
    const std::string k = key(format::group_key(kW3, 9, 5));
    r.at(k) = earlier.at(k);
    return {kW3, 9, {15, 16, 17}};
  }
  if (name == "a level record restored from an earlier build") {
    const std::string k = key(format::level_key(kW3, 9));
    r.at(k) = earlier.at(k);
    return {kW3, 9, all_blocks()};
  }
  if (name == "the level records of two tables swapped") {
    swap(key(format::level_key(kW3, 9)), key(format::level_key(kK3, 9)));
    return {kW3, 9, {}};
  }
  // A whole level, its record and its groups, moved to the other table.
  swap(key(format::level_key(kW3, 9)), key(format::level_key(kK3, 9)));
  for (std::uint32_t g = 0; g < 11; ++g)
    swap(key(format::group_key(kW3, 9, g)), key(format::group_key(kK3, 9, g)));
  return {kK3, 9, {}};
}

const char* const kCases[] = {
    "two group records of a level swapped",          "two blocks of a group exchanged",
    "a block of level 8 over one of level 9",        "one group of two tables swapped",
    "a block copied over another of its level",      "a group restored from an earlier build",
    "a level record restored from an earlier build", "the level records of two tables swapped",
    "a whole level moved to the other table"};

// Whether an error names what case c damaged: one of its blocks, or its level record.
::testing::AssertionResult names_the_damage(const std::string& error, const Case& c) {
  const std::string level = "level " + std::to_string(c.n);
  if (c.blocks.empty() && error.find(level + ": corrupt level record") != std::string::npos)
    return ::testing::AssertionSuccess();
  const std::size_t at = error.find(level + " block ");
  if (at != std::string::npos) {
    const auto b = std::uint32_t(std::stoul(error.substr(at + level.size() + 7)));
    if (std::find(c.blocks.begin(), c.blocks.end(), b) != c.blocks.end())
      return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "the error does not name the damage: " << error;
}

// Every position of level n of m=3, with its storage rank.
std::vector<std::pair<Position, std::uint64_t>> level_positions(int n) {
  const StorageOrder order(3, n);
  std::vector<std::pair<Position, std::uint64_t>> out;
  Stones x[6];
  for (std::uint64_t r = 0; r < level_entries(3, n); ++r) {
    order.unrank(r, n, x);
    Position p;
    p.m = 3;
    for (int i = 0; i < 3; ++i) {
      p.own_pit(i) = x[i];
      p.opp_pit(i) = x[3 + i];
    }
    out.emplace_back(p, r);
  }
  return out;
}

class Misplaced : public ::testing::TestWithParam<const char*> {};

TEST_P(Misplaced, IsAnErrorNamingItOnEveryReadPathAndOtherBlocksStillAnswer) {
  TempDir dir("block_place");
  const Records earlier = write_tables(dir.str());
  Records records = test::read_raw(dir.str());
  const Case c = misplace(GetParam(), records, earlier);
  test::edit_raw(dir.str(),
                 std::map<std::string, std::optional<std::string>>(records.begin(), records.end()));

  Store store(dir.str(), false);
  const TableId t = c.table;
  std::vector<std::int8_t> whole(level_entries(3, c.n));
  EXPECT_TRUE(names_the_damage(error_of([&] { store.read_level(t, c.n, whole); }), c));
  for (const unsigned threads : {1u, 3u})
    EXPECT_TRUE(names_the_damage(error_of([&] {
                                   store.scan_level_parallel(
                                       t, c.n, threads,
                                       [](std::uint64_t, std::span<const std::int8_t>) {});
                                 }),
                                 c));
  EXPECT_TRUE(names_the_damage(error_of([&] { Probe(store, t, 0, TableLoad::kMemory); }), c));
  bool listed = false;
  for (const LevelStats& l : level_stats(store, t)) {
    if (l.n != c.n) continue;
    listed = true;
    EXPECT_TRUE(names_the_damage(l.damage, c));
  }
  EXPECT_TRUE(listed) << "level_stats lists level " << c.n;

  // Through the block cache: the right value or an error naming the block, never another value.
  if (c.blocks.empty()) {  // the level record is refused when the probe is opened
    EXPECT_TRUE(names_the_damage(error_of([&] { Probe(store, t, 1 << 20); }), c));
    return;
  }
  Probe probe(store, t, 1 << 20);
  const std::vector<std::int8_t> right = values(t, c.n);
  const LevelIndex index(3, kTop);
  int refused = 0;
  for (const auto& [p, rank] : level_positions(c.n)) {
    const auto b = std::uint32_t(rank / kPerBlock);
    const bool misplaced = std::find(c.blocks.begin(), c.blocks.end(), b) != c.blocks.end();
    Stones x[6];
    for (int i = 0; i < 3; ++i) x[i] = p.own_pit(i), x[3 + i] = p.opp_pit(i);
    const int want = right[index.rank(x, c.n)];
    try {
      const std::optional<int> got = probe.future(p);
      EXPECT_FALSE(misplaced) << "block " << b << " answered";
      EXPECT_EQ(got, want) << "block " << b;
    } catch (const DbError& e) {
      ++refused;
      EXPECT_TRUE(misplaced) << e.what();
      EXPECT_NE(std::string(e.what()).find("level 9 block " + std::to_string(b) + ":"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_GT(refused, 0);
}

INSTANTIATE_TEST_SUITE_P(Records, Misplaced, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name;
                           for (const char* s = info.param; *s; ++s)
                             if (std::isalnum(static_cast<unsigned char>(*s))) name += *s;
                           return name;
                         });

// A level written again by another build replaces the identity its blocks are bound to: its
// values read back, and the identity is the new store's.
TEST(BlockPlace, EachWriteBindsTheLevelToTheWritingStoresBuild) {
  TempDir dir("block_place_build");
  std::uint64_t first = 0;
  {
    Store store(dir.str(), true, options());
    first = store.build();
    EXPECT_NE(first, 0u);
    store.write_level(kW3, 5, values(kW3, 5));
    EXPECT_EQ(store.level_meta(kW3, 5)->build, first);
  }
  Store store(dir.str(), true, options());
  EXPECT_NE(store.build(), first);
  store.write_level(kW3, 5, values(kW3, 5));
  EXPECT_EQ(store.level_meta(kW3, 5)->build, store.build());
  std::vector<std::int8_t> back(level_entries(3, 5));
  store.read_level(kW3, 5, back);
  EXPECT_EQ(back, values(kW3, 5));
}

// A book entry moved onto another table's key fails its checksum, which covers the key.
TEST(BlockPlace, ABookEntryMovedToAnotherTableFails) {
  TempDir dir("block_place_book");
  const std::vector<Stones> pits = {1, 2, 3, 4, 5, 6};
  {
    Store store(dir.str(), true, options());
    store.put_book(kW3, {{pits, 3}});
    store.put_book(kK3, {{pits, -5}});
  }
  Records r = test::read_raw(dir.str());
  const std::string w = key(format::book_key(kW3, pits)), k = key(format::book_key(kK3, pits));
  test::edit_raw(dir.str(), w, r.at(k));
  Store store(dir.str(), false);
  EXPECT_NE(error_of([&] { store.get_book(kW3, pits); }).find("fails its checksum"),
            std::string::npos);
  EXPECT_EQ(store.get_book(kK3, pits), -5);
}

}  // namespace
}  // namespace kalah
