// The solver's transposition table: proven bounds on the future margin, keyed by the pits alone.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
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
};

// A table of 4-entry buckets (one cache line each). A store merges into the entry of the same key
// (intersecting the bounds) or replaces the bucket's least-worked entry.
//
// A private table starts small and doubles whenever it is three-quarters full, up to its maximum
// size, so small solves stay fast; growth depends only on the stores, so node counts stay
// deterministic. A shared table has its maximum size from the start and may be probed and stored
// by many threads at once without locks: each slot is two 64-bit words, the packed bounds and
// their key xor-ed with them, so a slot half-written by another thread reads as a miss, never as
// wrong bounds. Racing stores may lose one of two entries, which costs time, not correctness.
class SolveTable {
 public:
  static constexpr int kWays = 4;
  static constexpr std::size_t kInitialBytes = std::size_t(1) << 20;

  explicit SolveTable(std::size_t max_bytes, bool shared = false) : shared_(shared) {
    max_buckets_ = 1;
    while (max_buckets_ * 2 * sizeof(Bucket) <= max_bytes) max_buckets_ *= 2;
    allocate(shared ? max_buckets_ : std::min(max_buckets_, kInitialBytes / sizeof(Bucket)));
  }

  std::size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }
  std::size_t max_bytes() const { return max_buckets_ * sizeof(Bucket); }

  void prefetch(std::uint64_t key) const { __builtin_prefetch(&buckets_[key & mask_]); }

  // True when the table holds bounds for key (key must not be 0); they are copied into out.
  [[gnu::always_inline]] bool probe(std::uint64_t key, SolveEntry& out) const {
    Bucket& b = buckets_[key & mask_];
    for (Slot& s : b.s) {
      const std::uint64_t data = load(s.data);
      if ((load(s.check) ^ data) == key) {
        out = unpack(key, data);
        return true;
      }
    }
    return false;
  }

  // Records lower <= future <= upper (either may be the trivial -n / n). Bounds outside the int16
  // range are weakened to fit, which keeps them true.
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    const std::int16_t lo = std::int16_t(std::clamp(lower, -32767, 32767));
    const std::int16_t hi = std::int16_t(std::clamp(upper, -32767, 32767));
    if (insert(SolveEntry{key, lo, hi, std::int8_t(move), std::uint8_t(work)}) && !shared_ &&
        ++used_ > (mask_ + 1) * kWays / 4 * 3 && mask_ + 1 < max_buckets_)
      grow();
  }

 private:
  struct Slot {
    std::uint64_t check;  // key ^ data; both 0: empty
    std::uint64_t data;   // pack()
  };
  struct alignas(64) Bucket {
    Slot s[kWays];
  };

  static std::uint64_t load(std::uint64_t& w) {
    return std::atomic_ref<std::uint64_t>(w).load(std::memory_order_relaxed);
  }
  static void put(Slot& s, const SolveEntry& e) {
    const std::uint64_t data = pack(e);
    std::atomic_ref<std::uint64_t>(s.data).store(data, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(s.check).store(e.key ^ data, std::memory_order_relaxed);
  }
  static std::uint64_t pack(const SolveEntry& e) {
    return std::uint64_t(std::uint16_t(e.lower)) | std::uint64_t(std::uint16_t(e.upper)) << 16 |
           std::uint64_t(std::uint8_t(e.move)) << 32 | std::uint64_t(e.work) << 40;
  }
  static SolveEntry unpack(std::uint64_t key, std::uint64_t d) {
    return SolveEntry{key, std::int16_t(std::uint16_t(d)), std::int16_t(std::uint16_t(d >> 16)),
                      std::int8_t(std::uint8_t(d >> 32)), std::uint8_t(d >> 40)};
  }

  // Merges or places `in`; true when it took an empty slot.
  bool insert(const SolveEntry& in) {
    Bucket& b = buckets_[in.key & mask_];
    Slot* victim = nullptr;
    int victim_work = 256;
    for (Slot& s : b.s) {
      const std::uint64_t data = load(s.data);
      const std::uint64_t key = load(s.check) ^ data;
      if (key == in.key) {
        SolveEntry e = unpack(key, data);
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
        put(s, e);
        return false;
      }
      if (key == 0) {  // buckets fill in order: no entry of this key follows
        put(s, in);
        return true;
      }
      const int work = std::uint8_t(data >> 40);
      if (work < victim_work) {
        victim = &s;
        victim_work = work;
      }
    }
    put(*victim, in);
    return false;
  }

  // Zeroed memory: all-zero slots are empty.
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
      for (const Slot& s : old[i].s)
        if ((s.check ^ s.data) != 0) used_ += insert(unpack(s.check ^ s.data, s.data));
  }

  bool shared_;
  HugeBuffer memory_;
  Bucket* buckets_ = nullptr;  // in memory_
  std::size_t mask_ = 0;
  std::size_t max_buckets_ = 1;
  std::size_t used_ = 0;  // non-empty entries (private tables only)
};

}  // namespace kalah::solve_detail
