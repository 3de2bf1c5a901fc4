// The solver's transposition table: proven bounds on the future margin, keyed by the pits alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "huge_buffer.hpp"

namespace kalah::solve_detail {

// An entry proves lower <= future <= upper for the position whose pits hash to `key` (side to
// move first), future being the margin minus the kalah difference (RULES.md "Values"). Keying by
// the pits lets positions that differ only in their kalahs share an entry. A 64-bit key makes a
// wrong match of two different positions improbable (about probes * 2^-62) but not impossible.
struct SolveEntry {
  std::uint64_t key = 0;  // 0: empty slot
  std::int16_t lower = 0;
  std::int16_t upper = 0;
  std::int8_t move = -1;  // 0-based pit of the best (or refuting) move, -1 none
  std::uint8_t work = 0;  // log2 of the nodes spent proving the bounds: the replacement priority
  std::uint16_t unused = 0;
};
static_assert(sizeof(SolveEntry) == 16);

// A table of 4-entry buckets (one cache line each). A store merges into the entry of the same key
// (intersecting the bounds) or replaces the bucket's least-worked entry. The table starts small
// and doubles whenever it is three-quarters full, up to its maximum size, so small solves stay
// fast; growth depends only on the stores, so node counts stay deterministic.
class SolveTable {
 public:
  static constexpr int kWays = 4;
  static constexpr std::size_t kInitialBytes = std::size_t(1) << 20;

  explicit SolveTable(std::size_t max_bytes) {
    max_buckets_ = 1;
    while (max_buckets_ * 2 * sizeof(Bucket) <= max_bytes) max_buckets_ *= 2;
    allocate(std::min(max_buckets_, kInitialBytes / sizeof(Bucket)));
  }

  std::size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }
  std::size_t max_bytes() const { return max_buckets_ * sizeof(Bucket); }

  void prefetch(std::uint64_t key) const { __builtin_prefetch(&buckets_[key & mask_]); }

  // The entry for key, or nullptr. key must not be 0. Valid until the next store().
  const SolveEntry* probe(std::uint64_t key) const {
    const Bucket& b = buckets_[key & mask_];
    for (const SolveEntry& e : b.e)
      if (e.key == key) return &e;
    return nullptr;
  }

  // Records lower <= future <= upper (either may be the trivial -n / n). Bounds outside the int16
  // range are weakened to fit, which keeps them true.
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    const std::int16_t lo = std::int16_t(std::clamp(lower, -32767, 32767));
    const std::int16_t hi = std::int16_t(std::clamp(upper, -32767, 32767));
    if (insert(SolveEntry{key, lo, hi, std::int8_t(move), std::uint8_t(work), 0}) &&
        ++used_ > (mask_ + 1) * kWays / 4 * 3 && mask_ + 1 < max_buckets_)
      grow();
  }

 private:
  struct alignas(64) Bucket {
    SolveEntry e[kWays];
  };
  // Merges or places `in`; true when it took an empty slot.
  bool insert(const SolveEntry& in) {
    Bucket& b = buckets_[in.key & mask_];
    SolveEntry* victim = &b.e[0];
    for (SolveEntry& e : b.e) {
      if (e.key == in.key) {
        const std::int16_t mlo = std::max(e.lower, in.lower), mhi = std::min(e.upper, in.upper);
        if (mlo <= mhi) {  // else a key collision: the new bounds win
          e.lower = mlo;
          e.upper = mhi;
        } else {
          e.lower = in.lower;
          e.upper = in.upper;
        }
        if (in.move >= 0) e.move = in.move;
        e.work = std::max(e.work, in.work);
        return false;
      }
      if (e.key == 0) {  // buckets fill in order: no entry of this key follows
        e = in;
        return true;
      }
      if (e.work < victim->work) victim = &e;
    }
    *victim = in;
    return false;
  }

  // Zeroed memory: all-zero bytes are empty entries.
  void allocate(std::size_t buckets) {
    memory_ = HugeBuffer(buckets * sizeof(Bucket));
    buckets_ = memory_.as<Bucket>();
    mask_ = buckets - 1;
    used_ = 0;
  }

  void grow() {
    HugeBuffer old_memory = std::move(memory_);
    const Bucket* old = buckets_;
    const std::size_t old_count = mask_ + 1;
    allocate(old_count * 2);
    for (std::size_t i = 0; i < old_count; ++i)
      for (const SolveEntry& e : old[i].e)
        if (e.key != 0) used_ += insert(e);
  }

  HugeBuffer memory_;
  Bucket* buckets_ = nullptr;  // in memory_
  std::size_t mask_ = 0;
  std::size_t max_buckets_ = 1;
  std::size_t used_ = 0;  // non-empty entries
};

}  // namespace kalah::solve_detail
