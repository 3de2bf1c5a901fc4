// The solver's transposition table: proven bounds on the future margin, keyed by the pits alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace kalah::solve_detail {

// An entry proves lower <= future <= upper for the position whose pits hash to `key` (side to
// move first), future being the margin minus the kalah difference (RULES.md "Values"). Keying by
// the pits lets positions that differ only in their kalahs share an entry. A 64-bit key makes a
// wrong match of two different positions improbable (about probes * 2^-62) but not impossible.
struct SolveEntry {
  std::uint64_t key = 0;  // 0: empty slot
  std::int16_t lower = 0;
  std::int16_t upper = 0;
  std::int8_t move = -1;   // 0-based pit of the best (or refuting) move, -1 none
  std::uint8_t work = 0;   // log2 of the nodes spent proving the bounds: the replacement priority
  std::uint16_t unused = 0;
};
static_assert(sizeof(SolveEntry) == 16);

// A fixed-size table of 4-entry buckets (one cache line). A store merges into the entry of the
// same key (intersecting the bounds) or replaces the bucket's least-worked entry.
class SolveTable {
 public:
  static constexpr int kWays = 4;

  explicit SolveTable(std::size_t bytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    buckets_.reset(new Bucket[buckets]);
    mask_ = buckets - 1;
  }

  std::size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }

  void prefetch(std::uint64_t key) const { __builtin_prefetch(&buckets_[key & mask_]); }

  // The entry for key, or nullptr. key must not be 0.
  const SolveEntry* probe(std::uint64_t key) const {
    const Bucket& b = buckets_[key & mask_];
    for (const SolveEntry& e : b.e)
      if (e.key == key) return &e;
    return nullptr;
  }

  // Records lower <= future <= upper (either may be the trivial -n / n). Bounds outside the int16
  // range are weakened to fit, which keeps them true.
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    Bucket& b = buckets_[key & mask_];
    const std::int16_t lo = std::int16_t(std::clamp(lower, -32767, 32767));
    const std::int16_t hi = std::int16_t(std::clamp(upper, -32767, 32767));
    SolveEntry* victim = &b.e[0];
    for (SolveEntry& e : b.e) {
      if (e.key == key) {
        const std::int16_t mlo = std::max(e.lower, lo), mhi = std::min(e.upper, hi);
        if (mlo <= mhi) {  // else a key collision: the new bounds win
          e.lower = mlo;
          e.upper = mhi;
        } else {
          e.lower = lo;
          e.upper = hi;
        }
        if (move >= 0) e.move = std::int8_t(move);
        e.work = std::uint8_t(std::max(int(e.work), work));
        return;
      }
      if (e.key == 0) {  // buckets fill in order: no entry of this key follows
        victim = &e;
        break;
      }
      if (e.work < victim->work) victim = &e;
    }
    *victim = SolveEntry{key, lo, hi, std::int8_t(move), std::uint8_t(work), 0};
  }

 private:
  struct alignas(64) Bucket {
    SolveEntry e[kWays];
  };
  std::unique_ptr<Bucket[]> buckets_;
  std::size_t mask_ = 0;
};

}  // namespace kalah::solve_detail
