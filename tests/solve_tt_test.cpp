// The solver's transposition table: what a probe returns after stores, merges and replacements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "solve_tt.hpp"

namespace kalah::solve_detail {
namespace {

// A key whose low bits pick bucket `bucket` of a table of `buckets` buckets and whose top bits
// are `tag`.
std::uint64_t key_in(std::uint64_t bucket, std::uint64_t tag) {
  return tag << (64 - SolveTable::kTagBits) | bucket;
}

TEST(SolveTable, ProbeReturnsTheStoredBoundsMoveAndWork) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t key = rng() | 1;
    const int lower = int(rng() % 490) - 255;  // [-255, 234]
    const int upper = lower + int(rng() % 20);
    const int move = int(rng() % 13) - 1;  // -1: none
    const int work = int(rng() % 64);
    SolveTable fresh(std::size_t(1) << 16);
    fresh.store(key, lower, upper, move, work);
    SolveEntry e;
    ASSERT_TRUE(fresh.probe(key, e));
    EXPECT_EQ(e.lower, lower);
    EXPECT_EQ(e.upper, upper);
    EXPECT_EQ(e.move, move);
    EXPECT_EQ(e.work, work);
    EXPECT_FALSE(fresh.probe(key ^ (std::uint64_t(1) << 63), e));  // other tag, same bucket
  }
}

TEST(SolveTable, BoundsOutsideNineBitsAreWeakenedNeverStrengthened) {
  SolveTable tt(std::size_t(1) << 16);
  SolveEntry e;
  tt.store(5, -300, 300, 2, 1);  // trivial bounds of a board with 300 stones in pits
  ASSERT_TRUE(tt.probe(5, e));
  EXPECT_LE(e.lower, -300);
  EXPECT_GE(e.upper, 300);
  tt.store(6, 280, 290, 2, 1);
  ASSERT_TRUE(tt.probe(6, e));
  EXPECT_LE(e.lower, 280);  // weaker: still true
  EXPECT_GE(e.upper, 290);
  tt.store(7, -290, -280, 2, 1);
  ASSERT_TRUE(tt.probe(7, e));
  EXPECT_LE(e.lower, -290);
  EXPECT_GE(e.upper, -280);
  tt.store(8, -256, 255, 2, 1);  // the encodings' "none" values mean no bound
  ASSERT_TRUE(tt.probe(8, e));
  EXPECT_LE(e.lower, -256);
  EXPECT_GE(e.upper, 255);
  tt.store(8, -10, 12, -1, 0);  // merging: bounds intersect, the move and the higher work stay
  ASSERT_TRUE(tt.probe(8, e));
  EXPECT_EQ(e.lower, -10);
  EXPECT_EQ(e.upper, 12);
  EXPECT_EQ(e.move, 2);
  EXPECT_EQ(e.work, 1);
}

TEST(SolveTable, MergesIntersectBoundsAndContradictionsTakeTheNewOnes) {
  SolveTable tt(std::size_t(1) << 16);
  SolveEntry e;
  tt.store(42, -4, 10, 3, 5);
  tt.store(42, 2, 20, -1, 2);
  ASSERT_TRUE(tt.probe(42, e));
  EXPECT_EQ(e.lower, 2);
  EXPECT_EQ(e.upper, 10);
  EXPECT_EQ(e.move, 3);
  EXPECT_EQ(e.work, 5);
  tt.store(42, 14, 16, 1, 1);  // disjoint from [2, 10]: a key collision, the new bounds win
  ASSERT_TRUE(tt.probe(42, e));
  EXPECT_EQ(e.lower, 14);
  EXPECT_EQ(e.upper, 16);
  EXPECT_EQ(e.move, 1);
}

TEST(SolveTable, AFullBucketReplacesItsLeastWorkedEntry) {
  SolveTable tt(std::size_t(1) << 16);  // 1024 buckets
  for (int w = 0; w < SolveTable::kWays; ++w)
    tt.store(key_in(3, 100 + w), w, w, 0, w == 4 ? 1 : 10 + w);
  SolveEntry e;
  // Tags 100..108 agree in the key's top 32 bits (the probe's first filter): the whole tag decides.
  for (int w = 0; w < SolveTable::kWays; ++w) {
    ASSERT_TRUE(tt.probe(key_in(3, 100 + w), e));
    EXPECT_EQ(e.lower, w);
  }
  EXPECT_FALSE(tt.probe(key_in(3, 108), e));
  tt.store(key_in(3, 999), 7, 7, 0, 2);
  EXPECT_TRUE(tt.probe(key_in(3, 999), e));
  EXPECT_FALSE(tt.probe(key_in(3, 104), e));  // the entry of work 1 made room
  for (int w = 0; w < SolveTable::kWays; ++w) {
    if (w == 4) continue;
    EXPECT_TRUE(tt.probe(key_in(3, 100 + w), e));
  }
  EXPECT_FALSE(tt.probe(key_in(4, 999), e));  // same tag, other bucket
}

// Views with different salts share the table's memory, not its entries; salt 0 is the table.
TEST(TableView, SaltsKeepTheSameKeyApart) {
  SolveTable tt(std::size_t(1) << 16);
  TableView wetherell(tt, 0x1234'5678'9abc'def1), kalah(tt, 0x0fed'cba9'8765'4321), plain(tt, 0);
  const std::uint64_t key = 0x5555'aaaa'5555'aaaa;
  wetherell.store(key, -4, 2, 3, 5);
  SolveEntry e;
  ASSERT_TRUE(wetherell.probe(key, e));
  EXPECT_EQ(e.lower, -4);
  EXPECT_EQ(e.upper, 2);
  EXPECT_FALSE(kalah.probe(key, e));
  EXPECT_FALSE(plain.probe(key, e));
  kalah.store(key, 6, 6, 1, 5);
  ASSERT_TRUE(wetherell.probe(key, e));
  EXPECT_EQ(e.lower, -4);  // not merged with the other rule set's bounds
  ASSERT_TRUE(kalah.probe(key, e));
  EXPECT_EQ(e.lower, 6);
  plain.store(key, 0, 0, 0, 1);
  ASSERT_TRUE(tt.probe(key, e));
  EXPECT_EQ(e.lower, 0);
}

}  // namespace
}  // namespace kalah::solve_detail
