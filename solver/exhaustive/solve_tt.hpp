// The solver's transposition table (TT): proven bounds on the future margin, keyed by the pits
// alone.
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
// wrong match of two different positions improbable (SolveTT) but not impossible.
struct SolveEntry {
  std::uint64_t key = 0;  // the probed key
  std::int16_t lower = 0;
  std::int16_t upper = 0;
  std::int8_t move = -1;  // 0-based pit of the best (or refuting) move, -1 none
  std::uint8_t work = 0;  // log2 of the nodes spent proving the bounds: the replacement priority
};

// A TT of 8-entry buckets (one cache line each), allocated at its full size (or, growable,
// reserved at it and used from a smaller power of two up, below): one 64-bit word
// per entry keeps the TT's footprint small, and the search's speed is bound by the latency of
// its random accesses, which grows with the footprint (docs/SOLVER.md, "Transposition table"). A
// store merges into the entry of the same key (intersecting the bounds) or replaces the bucket's
// least-worked entry.
//
// A word holds the key's top kTagBits bits (its low bits chose the bucket; a growable TT's tag:
// below), the bounds, move + 1
// and work; all zero: empty. Words are read and written whole, so any number of threads may probe
// and store at once without locks and never see a half-written entry. Racing stores may lose one of
// two entries, which costs time, not correctness. An entry matches a probe of another position only
// when the two keys agree in the tag and the bucket's bits (36 + log2 buckets bits, 56 for 64 MiB):
// about probes * 8 * 2^-56. Bounds keep 9 bits: -256 as a lower and 255 as an upper bound stand for
// "none", and other bounds beyond [-256, 255] are weakened to fit, which keeps them true.
//
// Aging (Aging::kOn, for a TT kept across searches: libkalah's analysis cache): each search
// starts a generation (new_generation()), and a full bucket's victim is its least-worked entry
// among those not stored in the current generation; only a bucket whose every entry is of the
// current generation gives up its least-worked of all. So entries of searches gone by, however
// much work they hold, make room for the current search before it displaces its own. It costs a
// side array of one 16-bit word per bucket, aging_bytes() = bytes() / 32, touched by stores only.
// The side words are read and written without synchronising with the entries: a race (two stores
// into one bucket, a store beside new_generation()) can only choose a worse victim, which costs
// time, never correctness. Without aging the TT replaces by work alone and has no side array.
//
// Growable (start_bytes below bytes, without aging): the TT's memory is reserved at its full
// size but only touched as it is used, and the TT starts with start_bytes' 2^s buckets. Its tag
// is then the key's 36 bits just above the starting index, bits [s, s + 36), instead of the top
// 36: an entry knows every key bit a larger index takes, so once the TT has taken an eighth of
// its slots in new entries (counted on a 256th of the keys) it doubles, up to the full size, and
// each entry whose key has the new index bit set moves to the new bucket its key reaches. An entry
// matches only keys that agree with its own in bits [0, s + 36) (56 for a 64 MiB start), at every
// size. Any thread may grow the TT while others probe and store (the mask is atomic, the move
// word by word; a probe that races a move may miss its entry, and a store may land in the old
// bucket, where no key reaches it again: both cost time only).
class SolveTT {
 public:
  static constexpr int kWays = 8;
  static constexpr int kTagBits = 36;

  enum class Aging : bool { kOff, kOn };

  // A TT of bytes_for(bytes), with the side array when aging, its memory faulted in by `threads`
  // threads (HugeBuffer). With start_bytes (0: none) below that and no aging, a growable TT
  // starting at bytes_for(start_bytes), its memory faulted in as it is used. Throws
  // std::bad_alloc when it cannot be allocated.
  explicit SolveTT(std::size_t bytes, Aging aging = Aging::kOff, int threads = 1,
                   std::size_t start_bytes = 0) {
    const std::size_t buckets = bytes_for(bytes) / sizeof(Bucket);
    const std::size_t start = start_bytes == 0 || aging == Aging::kOn
                                  ? buckets
                                  : std::min(buckets, bytes_for(start_bytes) / sizeof(Bucket));
    memory_ = HugeBuffer(buckets * sizeof(Bucket), start == buckets, threads);
    buckets_ = memory_.as<Bucket>();
    mask_ = start - 1;
    full_mask_ = buckets - 1;
    tag_shift_ = start == buckets ? 64 - kTagBits : std::countr_zero(start);
    if (aging == Aging::kOn) {
      age_memory_ = HugeBuffer(buckets * sizeof(std::uint16_t));
      ages_ = age_memory_.as<std::uint16_t>();
    }
  }

  // The size of a TT asked for `bytes`: a power of two of buckets, at least one.
  static std::size_t bytes_for(std::size_t bytes) {
    std::size_t buckets = 1;
    while (buckets * 2 * sizeof(Bucket) <= bytes) buckets *= 2;
    return buckets * sizeof(Bucket);
  }

  // The entries' memory in use; an aging TT takes aging_bytes() more. A growable TT's grows
  // up to max_bytes().
  std::size_t bytes() const { return (mask() + 1) * sizeof(Bucket); }
  std::size_t max_bytes() const { return (full_mask_ + 1) * sizeof(Bucket); }
  std::size_t aging_bytes() const { return ages_ != nullptr ? bytes() / 32 : 0; }
  bool aging() const { return ages_ != nullptr; }

  // Starts a generation: what is stored from now on is the current search's (aging; without
  // aging it changes nothing). Any thread, at any time.
  void new_generation() { generation_.fetch_add(1, std::memory_order_relaxed); }

  // The TT as 64-bit words (bytes() / 8 of them), for a checkpoint: words [from, from + count)
  // copied out, each read whole while other threads may store; and copied back in, into a TT of
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

  // True when the TT holds bounds for key; they are copied into out.
  [[gnu::always_inline]] bool probe(std::uint64_t key, SolveEntry& out) const {
    const Bucket& b = buckets_[key & mask()];
    const std::uint64_t tag = tag_of(key);
    for (unsigned hits = candidates(b, tag); hits != 0; hits &= hits - 1) {
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
    const std::size_t m = mask();
    const std::size_t i = key & m;
    if (ages_ == nullptr) [[likely]] {
      bool inserted = false;
      put(buckets_[i].w[place(buckets_[i], in, 0, &inserted)], in);
      // A 256th of the keys (top byte 0) counts the new entries of a TT that may still grow.
      if (inserted && m != full_mask_ && key >> 56 == 0) [[unlikely]]
        count_insertion(m);
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
  // *inserted (when given) says whether `in` takes a slot of its own (empty or a victim's).
  [[gnu::always_inline]] int place(const Bucket& b, SolveEntry& in, unsigned current,
                                   bool* inserted = nullptr) const {
    const std::uint64_t tag = tag_of(in.key);
    int victim = 0;
    int victim_rank = 2 * (kMaxWork + 1);
    if (inserted != nullptr) *inserted = true;
    for (int s = 0; s < kWays; ++s) {
      const std::uint64_t w = load(b.w[s]);
      if (w == 0) return s;
      if (w >> kFieldBits == tag) {
        merge(in, unpack(in.key, w));
        if (inserted != nullptr) *inserted = false;
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
  [[gnu::always_inline]] static unsigned candidates(const Bucket& b, std::uint64_t tag) {
    // The vector read of the bucket races other threads' stores; the slots it names are only a
    // hint, each read again atomically. ThreadSanitizer cannot tell, so under it every slot is one.
#if defined(__SSE2__) && !defined(__SANITIZE_THREAD__)
    const __m128 w01 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[0]));
    const __m128 w23 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[2]));
    const __m128 w45 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[4]));
    const __m128 w67 = _mm_load_ps(reinterpret_cast<const float*>(&b.w[6]));
    const __m128i top = _mm_set1_epi32(int(std::uint32_t(tag >> (kTagBits - 32))));
    const __m128i hi0123 = _mm_castps_si128(_mm_shuffle_ps(w01, w23, _MM_SHUFFLE(3, 1, 3, 1)));
    const __m128i hi4567 = _mm_castps_si128(_mm_shuffle_ps(w45, w67, _MM_SHUFFLE(3, 1, 3, 1)));
    return unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hi0123, top)))) |
           unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(hi4567, top)))) << 4;
#else
    (void)b;
    (void)tag;
    return (1u << kWays) - 1;
#endif
  }

  static std::uint64_t load(const std::uint64_t& w) {
    return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w))
        .load(std::memory_order_relaxed);
  }
  void put(std::uint64_t& slot, const SolveEntry& e) const {
    const std::uint64_t w = tag_of(e.key) << kFieldBits |
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

  std::size_t mask() const {
    return mask_.load(std::memory_order_relaxed);
  }

  // The kTagBits bits of key a word keeps: its top bits, or a growable TT's bits above its
  // starting index.
  [[gnu::always_inline]] std::uint64_t tag_of(std::uint64_t key) const {
    return key >> tag_shift_ & ((std::uint64_t(1) << kTagBits) - 1);
  }

  // A growable TT doubles once it has taken 1/kGrowthDivisor of its slots in new entries:
  // early enough that a large solve works in a TT about as large as a fixed one would be (the
  // same node count on Kalah(6,4) without a table, docs/PERFORMANCE.md), late enough that a small
  // game stays small.
  static constexpr std::size_t kGrowthDivisor = 8;

  // One sampled new entry in a TT of mask m + 1 buckets: it doubles once the samples reach a
  // 256th of 1/kGrowthDivisor of its slots.
  void count_insertion(std::size_t m) {
    const std::uint64_t samples = samples_.fetch_add(1, std::memory_order_relaxed) + 1;
    if (samples < (m + 1) * kWays / 256 / kGrowthDivisor) return;
    if (growing_.exchange(true, std::memory_order_acquire)) return;
    if (mask() == m) grow(m);
    growing_.store(false, std::memory_order_release);
  }

  // Doubles a TT of mask m + 1 buckets: each entry whose key has bit log2(m + 1) set (its tag
  // keeps it) moves to the bucket of the same index plus m + 1.
  void grow(std::size_t m) {
    const int bit = kFieldBits + std::countr_zero(m + 1) - tag_shift_;
    for (std::size_t i = 0; i <= m; ++i) {
      Bucket& from = buckets_[i];
      Bucket& to = buckets_[i + m + 1];
      int next = 0;
      for (int slot = 0; slot < kWays; ++slot) {
        std::uint64_t w = load(from.w[slot]);
        if (w == 0 || (w >> bit & 1) == 0) continue;
        std::atomic_ref<std::uint64_t>(to.w[next++]).store(w, std::memory_order_relaxed);
        std::atomic_ref<std::uint64_t>(from.w[slot])
            .compare_exchange_strong(w, 0, std::memory_order_relaxed);
      }
    }
    samples_.store(0, std::memory_order_relaxed);
    mask_.store(2 * m + 1, std::memory_order_relaxed);
  }

  HugeBuffer memory_;
  Bucket* buckets_ = nullptr;               // in memory_
  std::atomic<std::size_t> mask_ = 0;       // the buckets in use, minus one
  std::size_t full_mask_ = 0;               // the buckets reserved, minus one
  int tag_shift_ = 64 - kTagBits;           // the lowest key bit of a word's tag
  std::atomic<std::uint64_t> samples_ = 0;  // sampled new entries since the last growth
  std::atomic<bool> growing_ = false;       // a thread is doubling the TT
  // Aging: a bucket's generation (the TT's modulo 256) when it was last stored into, times
  // 256, plus the set of its slots stored in that generation (bit i: slot i). Null: no aging.
  HugeBuffer age_memory_;
  std::uint16_t* ages_ = nullptr;  // in age_memory_
  std::atomic<std::uint32_t> generation_ = 0;
};

// A SolveTT as one solve sees it: keys XORed with a salt of the solve's rule set and board size,
// so that solves of different games may share one TT (a key's meaning is a position's pits,
// and the same pits have other values under other rules). Salt 0: the keys as they are.
class TTView {
 public:
  TTView(SolveTT& tt, std::uint64_t salt) : tt_(&tt), salt_(salt) {}

  [[gnu::always_inline]] bool probe(std::uint64_t key, SolveEntry& out) const {
    return tt_->probe(key ^ salt_, out);
  }
  void store(std::uint64_t key, int lower, int upper, int move, int work) {
    tt_->store(key ^ salt_, lower, upper, move, work);
  }

 private:
  SolveTT* tt_;
  std::uint64_t salt_;
};

}  // namespace kalah::solve_detail
