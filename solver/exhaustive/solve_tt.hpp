// The solver's transposition table: proven bounds on the future margin, keyed by the pits alone.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "huge_buffer.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace kalah::solve_detail {

// An entry proves lower <= future <= upper for the position whose pits hash to `key` (side to
// move first), future being the margin minus the kalah difference (RULES.md "Values"). Keying by
// the pits lets positions that differ only in their kalahs share an entry. A 64-bit key makes a
// wrong match of two different positions improbable (SolveTable) but not impossible.
struct SolveEntry {
  std::uint64_t key = 0;  // the probed key
  std::int16_t lower = 0;
  std::int16_t upper = 0;
  std::int8_t move = -1;  // 0-based pit of the best (or refuting) move, -1 none
  std::uint8_t work = 0;  // log2 of the nodes spent proving the bounds: the replacement priority
};

// A table of 8-entry buckets (one cache line each), allocated at its full size: one 64-bit word
// per entry keeps the table's footprint small, and the search's speed is bound by the latency of
// its random accesses, which grows with the footprint (docs/SOLVER.md, "Transposition table"). A
// store merges into the entry of the same key (intersecting the bounds) or replaces the bucket's
// least-worked entry.
//
// A word holds the key's top kTagBits bits (its low bits chose the bucket), the bounds, move + 1
// and work; all zero: empty. Words are read and written whole, so any number of threads may probe
// and store at once without locks and never see a half-written entry. Racing stores may lose one of
// two entries, which costs time, not correctness. An entry matches a probe of another position only
// when the two keys agree in the tag and the bucket's bits (36 + log2 buckets bits, 56 for 64 MiB):
// about probes * 8 * 2^-56. Bounds keep 9 bits: -256 as a lower and 255 as an upper bound stand for
// "none", and other bounds beyond [-256, 255] are weakened to fit, which keeps them true.
class SolveTable {
 public:
  static constexpr int kWays = 8;
  static constexpr int kTagBits = 36;

  // A table of bytes_for(bytes). Throws std::bad_alloc when it cannot be allocated.
  explicit SolveTable(std::size_t bytes) {
    const std::size_t buckets = bytes_for(bytes) / sizeof(Bucket);
    memory_ = HugeBuffer(buckets * sizeof(Bucket));
    buckets_ = memory_.as<Bucket>();
    mask_ = buckets - 1;
  }

  // The size of a table asked for `bytes`: a power of two of buckets, at least one.
  static std::size_t bytes_for(std::size_t bytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    return buckets * sizeof(Bucket);
  }

  std::size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }

  // The table as 64-bit words (bytes() / 8 of them), for a checkpoint: words [from, from + count)
  // copied out, each read whole while other threads may store; and copied back in, into a table of
  // the same size (no other thread using it), where they prove what they proved.
  std::size_t words() const { return bytes() / sizeof(std::uint64_t); }
  void copy_out(std::size_t from, std::size_t count, std::uint64_t* out) const {
    const std::uint64_t* w = memory_.as<const std::uint64_t>() + from;
    for (std::size_t i = 0; i < count; ++i) out[i] = load(w[i]);
  }
  void copy_in(std::size_t from, std::size_t count, const std::uint64_t* in) {
    std::uint64_t* w = memory_.as<std::uint64_t>() + from;
    for (std::size_t i = 0; i < count; ++i) w[i] = in[i];
  }

  // True when the table holds bounds for key; they are copied into out.
  [[gnu::always_inline]] bool probe(std::uint64_t key, SolveEntry& out) const {
    const Bucket& b = buckets_[key & mask_];
    const std::uint64_t tag = key >> (64 - kTagBits);
    for (unsigned hits = candidates(b, key); hits != 0; hits &= hits - 1) {
      const std::uint64_t w = load(b.w[std::countr_zero(hits)]);
      if (w >> kFieldBits == tag && w != 0) {
        out = unpack(key, w);
        return true;
      }
    }
    return false;
  }

  // Records lower <= future <= upper (either may be the trivial -n / n).
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    SolveEntry in{key, std::int16_t(std::clamp(lower, -kNone, kNone)),
                  std::int16_t(std::clamp(upper, -kNone, kNone)), std::int8_t(move),
                  std::uint8_t(std::min(work, kMaxWork))};
    Bucket& b = buckets_[key & mask_];
    const std::uint64_t tag = key >> (64 - kTagBits);
    std::uint64_t* victim = nullptr;
    int victim_work = kMaxWork + 1;
    for (std::uint64_t& slot : b.w) {
      const std::uint64_t w = load(slot);
      if (w == 0) {  // buckets fill in order: no entry of this key follows
        put(slot, in);
        return;
      }
      if (w >> kFieldBits == tag) {
        const SolveEntry e = unpack(key, w);
        const std::int16_t mlo = std::max(e.lower, in.lower), mhi = std::min(e.upper, in.upper);
        if (mlo <= mhi) {  // else a key collision: the new bounds win
          in.lower = mlo;
          in.upper = mhi;
        }
        if (in.move < 0) in.move = e.move;
        in.work = std::max(e.work, in.work);
        put(slot, in);
        return;
      }
      const int work = int(w >> kWorkShift) & kMaxWork;
      if (work < victim_work) {
        victim = &slot;
        victim_work = work;
      }
    }
    put(*victim, in);
  }

 private:
  // Fields below the tag: lower (9 bits, two's complement), upper (9), move + 1 (4), work (6).
  static constexpr int kFieldBits = 64 - kTagBits;
  static constexpr int kWorkShift = 22;
  static constexpr int kMaxWork = 63;
  static constexpr int kNone = 32767;  // SolveEntry's bound for "none"
  static_assert(kWorkShift + 6 == kFieldBits);

  struct alignas(64) Bucket {
    std::uint64_t w[kWays];
  };

  // The slots of b that may hold key (bit i: slot i), a superset of those that do: with SSE2 the
  // slots whose top 32 bits are the key's, found for all eight at once (a racing store may change
  // a slot in between: probe() checks the whole word again); else all eight.
  [[gnu::always_inline]] static unsigned candidates(const Bucket& b, std::uint64_t key) {
#ifdef __SSE2__
    const __m128 w01 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[0]));
    const __m128 w23 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[2]));
    const __m128 w45 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[4]));
    const __m128 w67 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[6]));
    const __m128i top = _mm_set1_epi32(int(std::uint32_t(key >> 32)));
    const __m128i hi0123 = _mm_castps_si128(_mm_shuffle_ps(w01, w23, _MM_SHUFFLE(3, 1, 3, 1)));
    const __m128i hi4567 = _mm_castps_si128(_mm_shuffle_ps(w45, w67, _MM_SHUFFLE(3, 1, 3, 1)));
    return unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hi0123, top)))) |
           unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hi4567, top)))) << 4;
#else
    (void)b;
    (void)key;
    return (1u << kWays) - 1;
#endif
  }

  static std::uint64_t load(const std::uint64_t& w) {
    return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w))
        .load(std::memory_order_relaxed);
  }
  static void put(std::uint64_t& slot, const SolveEntry& e) {
    const std::uint64_t w = (e.key >> kFieldBits << kFieldBits) |
                            std::uint64_t(std::clamp<int>(e.lower, -256, 255) & 0x1FF) |
                            std::uint64_t(std::clamp<int>(e.upper, -256, 255) & 0x1FF) << 9 |
                            std::uint64_t(e.move + 1) << 18 | std::uint64_t(e.work) << kWorkShift;
    std::atomic_ref<std::uint64_t>(slot).store(w, std::memory_order_relaxed);
  }
  // The 9-bit two's complement field `bits` as an int.
  static int bound(std::uint64_t bits) {
    return int(bits ^ 0x100) - 0x100;
  }
  static SolveEntry unpack(std::uint64_t key, std::uint64_t w) {
    const int lower = bound(w & 0x1FF), upper = bound(w >> 9 & 0x1FF);
    return SolveEntry{key, std::int16_t(lower == -256 ? -kNone : lower),
                      std::int16_t(upper == 255 ? kNone : upper),
                      std::int8_t(int(w >> 18 & 15) - 1), std::uint8_t(w >> kWorkShift & kMaxWork)};
  }

  HugeBuffer memory_;
  Bucket* buckets_ = nullptr;  // in memory_
  std::size_t mask_ = 0;
};

// A SolveTable as one solve sees it: keys XORed with a salt of the solve's rule set and board size,
// so that solves of different games may share one table (a key's meaning is a position's pits,
// and the same pits have other values under other rules). Salt 0: the keys as they are.
class TableView {
 public:
  TableView(SolveTable& table, std::uint64_t salt) : table_(&table), salt_(salt) {}

  [[gnu::always_inline]] bool probe(std::uint64_t key, SolveEntry& out) const {
    return table_->probe(key ^ salt_, out);
  }
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    table_->store(key ^ salt_, lower, upper, move, work);
  }

 private:
  SolveTable* table_;
  std::uint64_t salt_;
};

}  // namespace kalah::solve_detail
