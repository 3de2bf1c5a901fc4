// The solver's transposition table: what a probe returns after stores, merges and replacements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "solver/exhaustive/solve_tt.hpp"

namespace kalah::solve_detail {
namespace {

// A key whose low bits pick bucket `bucket` of a table of `buckets` buckets and whose top bits
// are `tag`.
std::uint64_t key_in(std::uint64_t bucket, std::uint64_t tag) {
  return tag << (64 - SolveTT::kTagBits) | bucket;
}

TEST(SolveTT, ProbeReturnsTheStoredBoundsMoveAndWork) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t key = rng() | 1;
    const int lower = int(rng() % 490) - 255;  // [-255, 234]
    const int upper = lower + int(rng() % 20);
    const int move = int(rng() % 13) - 1;  // -1: none
    const int work = int(rng() % 64);
    SolveTT fresh(std::size_t(1) << 16);
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

TEST(SolveTT, BoundsOutsideNineBitsAreWeakenedNeverStrengthened) {
  SolveTT tt(std::size_t(1) << 16);
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

TEST(SolveTT, MergesIntersectBoundsAndContradictionsTakeTheNewOnes) {
  SolveTT tt(std::size_t(1) << 16);
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

TEST(SolveTT, AFullBucketReplacesItsLeastWorkedEntry) {
  SolveTT tt(std::size_t(1) << 16);  // 1024 buckets
  for (int w = 0; w < SolveTT::kWays; ++w)
    tt.store(key_in(3, 100 + w), w, w, 0, w == 4 ? 1 : 10 + w);
  SolveEntry e;
  // Tags 100..108 agree in the key's top 32 bits (the probe's first filter): the whole tag decides.
  for (int w = 0; w < SolveTT::kWays; ++w) {
    ASSERT_TRUE(tt.probe(key_in(3, 100 + w), e));
    EXPECT_EQ(e.lower, w);
  }
  EXPECT_FALSE(tt.probe(key_in(3, 108), e));
  tt.store(key_in(3, 999), 7, 7, 0, 2);
  EXPECT_TRUE(tt.probe(key_in(3, 999), e));
  EXPECT_FALSE(tt.probe(key_in(3, 104), e));  // the entry of work 1 made room
  for (int w = 0; w < SolveTT::kWays; ++w) {
    if (w == 4) continue;
    EXPECT_TRUE(tt.probe(key_in(3, 100 + w), e));
  }
  EXPECT_FALSE(tt.probe(key_in(4, 999), e));  // same tag, other bucket
}

// A new generation's stores, however little work they hold, replace the entries of older
// generations first (the least-worked of them first), never an entry of the current generation
// while an older one remains; then the least-worked of all.
TEST(SolveTT, AnAgingTableReplacesOlderGenerationsFirst) {
  SolveTT tt(std::size_t(1) << 16, SolveTT::Aging::kOn);
  ASSERT_TRUE(tt.aging());
  EXPECT_EQ(tt.aging_bytes(), tt.bytes() / 32);
  for (int w = 0; w < SolveTT::kWays; ++w) tt.store(key_in(3, 100 + w), w, w, 0, 40 + w);
  tt.new_generation();
  SolveEntry e;
  for (int n = 0; n < SolveTT::kWays; ++n) {
    tt.store(key_in(3, 200 + n), n, n, 0, 1);
    for (int k = 0; k <= n; ++k) {
      ASSERT_TRUE(tt.probe(key_in(3, 200 + k), e)) << "new entry " << k << " after " << n;
      EXPECT_EQ(e.lower, k);
      EXPECT_EQ(e.work, 1);
    }
    for (int w = 0; w < SolveTT::kWays; ++w)
      EXPECT_EQ(tt.probe(key_in(3, 100 + w), e), w > n) << "old entry " << w << " after " << n;
  }
  tt.store(key_in(3, 300), 9, 9, 0, 5);  // every entry current: the least-worked of all, the first
  EXPECT_TRUE(tt.probe(key_in(3, 300), e));
  EXPECT_FALSE(tt.probe(key_in(3, 200), e));
  for (int n = 1; n < SolveTT::kWays; ++n) EXPECT_TRUE(tt.probe(key_in(3, 200 + n), e));
  tt.new_generation();  // all of them old now: the least-worked of all again
  tt.store(key_in(3, 400), 0, 0, 0, 30);
  EXPECT_FALSE(tt.probe(key_in(3, 201), e));
  EXPECT_TRUE(tt.probe(key_in(3, 300), e));
}

// A merge into an entry of an older generation makes it the current generation's.
TEST(SolveTT, AnAgingTableKeepsAnEntryMergedIntoInThisGeneration) {
  SolveTT tt(std::size_t(1) << 16, SolveTT::Aging::kOn);
  for (int w = 0; w < SolveTT::kWays; ++w) tt.store(key_in(5, 100 + w), -8, 8, 0, 40 + w);
  tt.new_generation();
  tt.store(key_in(5, 100), -2, 8, -1, 0);  // the least-worked entry, merged: current
  tt.store(key_in(5, 999), 0, 0, 0, 1);
  SolveEntry e;
  ASSERT_TRUE(tt.probe(key_in(5, 100), e));
  EXPECT_EQ(e.lower, -2);
  EXPECT_EQ(e.work, 40);
  EXPECT_FALSE(tt.probe(key_in(5, 101), e));  // the least-worked of the older generation
  EXPECT_TRUE(tt.probe(key_in(5, 999), e));
}

// Stores, merges and new generations at random into a few buckets, against a model of the rule:
// the first empty slot, else the slot of the same key, else the least-worked (first of equals)
// among the slots not stored in the current generation (aging), or of all. Without aging the
// generations change nothing: replacement by work alone, as before aging existed.
void expect_replacement_as_modelled(SolveTT::Aging aging) {
  struct Slot {
    std::uint64_t key = 0;
    int work = 0, generation = -1;
  };
  constexpr int kBuckets = 4;
  std::vector<Slot> model(kBuckets * SolveTT::kWays);
  SolveTT tt(std::size_t(1) << 16, aging);
  std::mt19937_64 rng(45);
  int generation = 0;
  for (int i = 0; i < 20000; ++i) {
    if (rng() % 50 == 0 && generation < 255) {
      tt.new_generation();
      ++generation;
    }
    const std::uint64_t bucket = rng() % kBuckets, key = key_in(bucket, 1 + rng() % 40);
    const int work = int(rng() % 64);
    tt.store(key, 0, 0, 0, work);
    Slot* const slots = &model[bucket * SolveTT::kWays];
    Slot* to = nullptr;
    for (int s = 0; s < SolveTT::kWays && !to; ++s)
      if (slots[s].key == 0 || slots[s].key == key) to = &slots[s];
    const bool merge = to && to->key == key;
    for (const bool old_only : {true, false})
      for (int s = 0; s < SolveTT::kWays && !to; ++s) {
        const bool current = aging == SolveTT::Aging::kOn && slots[s].generation == generation;
        const bool lowest = std::none_of(slots, slots + SolveTT::kWays, [&](const Slot& o) {
          const bool o_current = aging == SolveTT::Aging::kOn && o.generation == generation;
          return (!old_only || !o_current) && o.work < slots[s].work;
        });
        if ((!old_only || !current) && lowest) to = &slots[s];
      }
    *to = {key, merge ? std::max(to->work, work) : work, generation};
    for (const Slot& m : model) {
      if (m.key == 0) continue;
      SolveEntry e;
      ASSERT_TRUE(tt.probe(m.key, e)) << "store " << i;
      EXPECT_EQ(e.work, m.work);
    }
  }
}

TEST(SolveTT, WithoutAgingGenerationsChangeNothingAndTheLeastWorkedGoes) {
  expect_replacement_as_modelled(SolveTT::Aging::kOff);
}

TEST(SolveTT, AnAgingTableReplacesAsModelled) {
  expect_replacement_as_modelled(SolveTT::Aging::kOn);
}

// Views with different salts share the table's memory, not its entries; salt 0 is the table.
// A growable table doubles as it fills, up to its full size, and what it held before each
// doubling is found after it (every key it was given stays, where a bucket had room).
TEST(SolveTT, AGrowableTableDoublesAsItFillsAndKeepsWhatItHeld) {
  const std::size_t start = std::size_t(1) << 16, full = std::size_t(1) << 20;
  SolveTT tt(full, SolveTT::Aging::kOff, 1, start);
  EXPECT_EQ(tt.bytes(), start);
  EXPECT_EQ(tt.max_bytes(), full);
  std::mt19937_64 rng(11);
  std::vector<std::uint64_t> keys;
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 30000; ++i) {
    keys.push_back(rng() | 1);
    tt.store(keys.back(), -(i % 50), i % 50, i % 6, 3);
    if (sizes.empty() || sizes.back() != tt.bytes()) sizes.push_back(tt.bytes());
  }
  EXPECT_EQ(tt.bytes(), full) << "30,000 new entries are more than an eighth of every size's slots";
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
  // The first table's 8,192 slots took the first keys with few replacements; a doubling that left
  // an entry behind (in the twin its key does not reach) would lose about half of them.
  int found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    SolveEntry e;
    if (!tt.probe(keys[i], e)) continue;
    ++found;
    EXPECT_EQ(e.lower, -int(i % 50));
    EXPECT_EQ(e.upper, int(i % 50));
    EXPECT_EQ(e.move, int(i % 6));
  }
  EXPECT_GE(found, int(keys.size()) * 99 / 100);
  SolveTT fixed(full, SolveTT::Aging::kOff, 1, 0);
  EXPECT_EQ(fixed.bytes(), full) << "start_bytes 0: the whole table at once";
  SolveTT aging(full, SolveTT::Aging::kOn, 1, start);
  EXPECT_EQ(aging.bytes(), full) << "an aging table never grows";
}

TEST(TTView, SaltsKeepTheSameKeyApart) {
  SolveTT tt(std::size_t(1) << 16);
  TTView wetherell(tt, 0x1234'5678'9abc'def1), kalah(tt, 0x0fed'cba9'8765'4321), plain(tt, 0);
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
