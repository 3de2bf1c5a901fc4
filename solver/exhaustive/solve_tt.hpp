// The solver's transposition table: proven bounds on the future margin, keyed by the pits alone.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/huge_buffer.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace kalah::solve_detail {

// A bound that stands for none: a SolveEntry's lower of -kNoBound, upper of kNoBound.
inline constexpr int kNoBound = 32767;

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
//
// Aging (Aging::kOn, for a table kept across searches: libkalah's analysis cache): each search
// starts a generation (new_generation()), and a full bucket's victim is its least-worked entry
// among those not stored in the current generation; only a bucket whose every entry is of the
// current generation gives up its least-worked of all. So entries of searches gone by, however
// much work they hold, make room for the current search before it displaces its own. It costs a
// side array of one 16-bit word per bucket, aging_bytes() = bytes() / 32, touched by stores only.
// The side words are read and written without synchronising with the entries: a race (two stores
// into one bucket, a store beside new_generation()) can only choose a worse victim, which costs
// time, never correctness. Without aging the table replaces by work alone and has no side array.
class SolveTable {
 public:
  static constexpr int kWays = 8;
  static constexpr int kTagBits = 36;

  enum class Aging : bool { kOff, kOn };

  // A table of bytes_for(bytes), with the side array when aging, its memory faulted in by `threads`
  // threads (HugeBuffer). Throws std::bad_alloc when it cannot be allocated.
  explicit SolveTable(std::size_t bytes, Aging aging = Aging::kOff, int threads = 1) {
    const std::size_t buckets = bytes_for(bytes) / sizeof(Bucket);
    memory_ = HugeBuffer(buckets * sizeof(Bucket), true, threads);
    buckets_ = memory_.as<Bucket>();
    mask_ = buckets - 1;
    if (aging == Aging::kOn) {
      age_memory_ = HugeBuffer(buckets * sizeof(std::uint16_t));
      ages_ = age_memory_.as<std::uint16_t>();
    }
  }

  // The size of a table asked for `bytes`: a power of two of buckets, at least one.
  static std::size_t bytes_for(std::size_t bytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    return buckets * sizeof(Bucket);
  }

  // The entries' memory; an aging table takes aging_bytes() more.
  std::size_t bytes() const { return (mask_ + 1) * sizeof(Bucket); }
  std::size_t aging_bytes() const { return ages_ != nullptr ? bytes() / 32 : 0; }
  bool aging() const { return ages_ != nullptr; }

  // Starts a generation: what is stored from now on is the current search's (aging; without
  // aging it changes nothing). Any thread, at any time.
  void new_generation() { generation_.fetch_add(1, std::memory_order_relaxed); }

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
    SolveEntry in{key, std::int16_t(std::clamp(lower, -kNoBound, kNoBound)),
                  std::int16_t(std::clamp(upper, -kNoBound, kNoBound)), std::int8_t(move),
                  std::uint8_t(std::min(work, kMaxWork))};
    const std::size_t i = key & mask_;
    if (ages_ == nullptr) [[likely]] {
      put(buckets_[i].w[place(buckets_[i], in, 0)], in);
      return;
    }
    std::atomic_ref<std::uint16_t> age(ages_[i]);
    const unsigned was = age.load(std::memory_order_relaxed);
    const unsigned now = generation_.load(std::memory_order_relaxed) & 0xFF;
    const unsigned current = was >> 8 == now ? was & 0xFF : 0;
    const int slot = place(buckets_[i], in, current);
    put(buckets_[i].w[slot], in);
    age.store(std::uint16_t(now << 8 | current | 1u << slot), std::memory_order_relaxed);
  }

 private:
  // Fields below the tag: lower (9 bits, two's complement), upper (9), move + 1 (4), work (6).
  static constexpr int kFieldBits = 64 - kTagBits;
  static constexpr int kWorkShift = 22;
  static constexpr int kMaxWork = 63;
  static_assert(kWorkShift + 6 == kFieldBits);

  struct alignas(64) Bucket {
    std::uint64_t w[kWays];
  };

  // The slot of b that `in` goes into: the first empty one (buckets fill in order), the one of
  // in's key (in then merged with it), else the victim: the least-worked slot outside `current`
  // (bit i: slot i of the current generation), or of all when `current` holds every slot.
  [[gnu::always_inline]] static int place(const Bucket& b, SolveEntry& in, unsigned current) {
    const std::uint64_t tag = in.key >> (64 - kTagBits);
    int victim = 0;
    int victim_rank = 2 * (kMaxWork + 1);
    for (int s = 0; s < kWays; ++s) {
      const std::uint64_t w = load(b.w[s]);
      if (w == 0) return s;
      if (w >> kFieldBits == tag) {
        merge(in, unpack(in.key, w));
        return s;
      }
      const int rank = (int(w >> kWorkShift) & kMaxWork) + int(current >> s & 1) * (kMaxWork + 1);
      if (rank < victim_rank) {
        victim = s;
        victim_rank = rank;
      }
    }
    return victim;
  }

  // in merged with e, the entry of the same key: the bounds intersected (the new ones when they
  // contradict, a key collision), the move kept when in has none, the higher work.
  static void merge(SolveEntry& in, const SolveEntry& e) {
    const std::int16_t lo = std::max(e.lower, in.lower), hi = std::min(e.upper, in.upper);
    if (lo <= hi) {
      in.lower = lo;
      in.upper = hi;
    }
    if (in.move < 0) in.move = e.move;
    in.work = std::max(e.work, in.work);
  }

  // The slots of b that may hold key (bit i: slot i), a superset of those that do: with SSE2 the
  // slots whose top 32 bits are the key's, found for all eight at once (a racing store may change
  // a slot in between: probe() checks the whole word again); else all eight.
  [[gnu::always_inline]] static unsigned candidates(const Bucket& b, std::uint64_t key) {
    // The vector read of the bucket races other threads' stores; the slots it names are only a
    // hint, each read again atomically. ThreadSanitizer cannot tell, so under it every slot is one.
#if defined(__SSE2__) && !defined(__SANITIZE_THREAD__)
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
    return SolveEntry{key, std::int16_t(lower == -256 ? -kNoBound : lower),
                      std::int16_t(upper == 255 ? kNoBound : upper),
                      std::int8_t(int(w >> 18 & 15) - 1), std::uint8_t(w >> kWorkShift & kMaxWork)};
  }

  HugeBuffer memory_;
  Bucket* buckets_ = nullptr;  // in memory_
  std::size_t mask_ = 0;
  // Aging: a bucket's generation (the table's modulo 256) when it was last stored into, times
  // 256, plus the set of its slots stored in that generation (bit i: slot i). Null: no aging.
  HugeBuffer age_memory_;
  std::uint16_t* ages_ = nullptr;  // in age_memory_
  std::atomic<std::uint32_t> generation_ = 0;
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
