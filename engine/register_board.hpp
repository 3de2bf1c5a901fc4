// RegisterBoard: the Board in one 16-byte vector register, for at most 7 pits and 255 stones.
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "engine/board.hpp"
#include "engine/position.hpp"

namespace kalah {

// Sixteen one-byte lanes (SSE2 or the target's equivalent); v[i] reads or writes lane i.
using Bytes16 = std::uint8_t __attribute__((vector_size(16)));

// Constant masks and sowing increments of RegisterBoard, per m.
struct ByteTables {
  static constexpr int kMaxM = 7;
  // inc[m][from][s]: one stone in each of the s < 2m+1 ring cells after `from`, wrapping.
  struct alignas(16) Lanes {
    std::uint8_t lane[16];
  };
  Lanes inc[kMaxM + 1][16][16];
  Lanes ring_mask[kMaxM + 1];         // 0xFF in each ring cell (pits and the mover's kalah)
  Lanes keep_all_but[16];             // 0xFF in every lane but one
  std::uint64_t own[kMaxM + 1];       // the mover's pits' lanes (all within the low eight)
  std::uint64_t opp[kMaxM + 1][2];    // the opponent's pits' lanes, low and high word
  std::uint64_t board[kMaxM + 1][2];  // the 2m+2 lanes of a board

  constexpr ByteTables() : inc{}, ring_mask{}, keep_all_but{}, own{}, opp{}, board{} {
    for (int c = 0; c < 16; ++c)
      for (int l = 0; l < 16; ++l) keep_all_but[c].lane[l] = l == c ? 0 : 0xFF;
    for (int m = 1; m <= kMaxM; ++m) {
      const int ring = 2 * m + 1;
      for (int c = 0; c < ring; ++c) ring_mask[m].lane[c] = 0xFF;
      for (int c = 0; c < m; ++c) own[m] |= std::uint64_t(0xFF) << (8 * c);
      for (int c = m + 1; c <= 2 * m; ++c) opp[m][c / 8] |= std::uint64_t(0xFF) << (8 * (c % 8));
      for (int c = 0; c < 2 * m + 2; ++c) board[m][c / 8] |= std::uint64_t(0xFF) << (8 * (c % 8));
      for (int from = 0; from < ring; ++from)
        for (int s = 1; s < ring; ++s)
          for (int k = 1; k <= s; ++k) ++inc[m][from][s].lane[(from + k) % ring];
    }
  }
};
inline constexpr ByteTables kTables{};

inline Bytes16 load(const ByteTables::Lanes& l) {
  Bytes16 v;
  std::memcpy(&v, l.lane, sizeof v);
  return v;
}

// 2M + 2 <= 16 one-byte cells in one vector register, lane i = cell i, the lanes above 2M+1 zero.
// No cell exceeds 255 because the board holds at most 255 stones. M is fixed at compile time.
template <int M>
class RegisterBoard {
  static_assert(M >= 1 && M <= ByteTables::kMaxM);
  static constexpr int kRing = 2 * M + 1;
  static constexpr int kHalf = 8 * (M + 1);  // bits of one side (pits and kalah)

 public:
  static constexpr int kFixedM = M;
  static constexpr int kMaxStones = 255;

  RegisterBoard() = default;  // uninitialized: only to be assigned to
  explicit RegisterBoard(const Position& p) : v_{} {
    for (int i = 0; i <= 2 * M + 1; ++i) v_[i] = std::uint8_t(p.cell[i]);
  }

  static constexpr int m() { return M; }
  int cell(int i) const { return v_[i]; }
  // Cell edits stay in the register (a mask and an add): a byte written to memory and the vector
  // read back would wait for the store to retire.
  void set(int i, int stones) {
    const Bytes16 keep = load(kTables.keep_all_but[i]);
    v_ = (v_ & keep) | (splat(stones) & ~keep);
  }
  int take(int i) {
    const int s = v_[i];
    v_ &= load(kTables.keep_all_but[i]);
    return s;
  }
  void add(int i, int stones) { v_ += splat(stones) & ~load(kTables.keep_all_but[i]); }
  // The board whose cells [0, 8) are the bytes of lo and [8, 16) those of hi (the lanes above
  // 2M+1 must be 0).
  static RegisterBoard from_words(std::uint64_t lo, std::uint64_t hi) {
    RegisterBoard b;
#ifdef __SSE2__
    b.v_ = Bytes16(_mm_set_epi64x(std::int64_t(hi), std::int64_t(lo)));
#else
    std::memcpy(&b.v_, &lo, 8);
    std::memcpy(reinterpret_cast<char*>(&b.v_) + 8, &hi, 8);
#endif
    return b;
  }
  // Both kalahs emptied.
  void clear_kalahs() {
    v_ &= load(kTables.keep_all_but[M]) & load(kTables.keep_all_but[2 * M + 1]);
  }

  // Empties cell `from` and sows its stones; returns the last cell sown.
  int sow(int from) {
    int s = v_[from];
    Bytes16 v = v_ & load(kTables.keep_all_but[from]);
    if (s >= kRing) [[unlikely]] {
      Bytes16 laps;
      std::memset(&laps, s / kRing, sizeof laps);
      v += laps & load(kTables.ring_mask[M]);
      s %= kRing;
      if (s == 0) {
        v_ = v;
        return from;
      }
    }
    v_ = v + load(kTables.inc[M][from][s]);
    const int last = from + s;
    return last < kRing ? last : last - kRing;
  }

  // Lanes [0, M] and [M+1, 2M+1] swap places; the lanes above stay 0.
  void flip() {
#ifdef __SSE2__
    // Two byte shifts; the mask clears the lanes above 2M+1, where the left shift moved some of
    // the opponent's.
    const __m128i x = __m128i(v_);
    const __m128i board =
        _mm_set_epi64x(std::int64_t(kTables.board[M][1]), std::int64_t(kTables.board[M][0]));
    v_ = Bytes16(
        _mm_and_si128(_mm_or_si128(_mm_srli_si128(x, M + 1), _mm_slli_si128(x, M + 1)), board));
#else
    std::uint64_t w[2];
    std::memcpy(w, &v_, sizeof w);
    const unsigned __int128 x = (static_cast<unsigned __int128>(w[1]) << 64) | w[0];
    const unsigned __int128 y = (x >> kHalf) | (x << kHalf);
    w[0] = std::uint64_t(y) & kTables.board[M][0];
    w[1] = std::uint64_t(y >> 64) & kTables.board[M][1];
    std::memcpy(&v_, w, sizeof w);
#endif
  }
  int kalah_difference() const {
    return int(v_[M]) - int(v_[2 * M + 1]);
  }
  bool own_empty() const {
    return (low() & kTables.own[M]) == 0;
  }
  // The mover's pit stones by one multiply: their sum is at most 255, so no byte carries.
  int own_stones() const {
    return int((low() & kTables.own[M]) * 0x0101010101010101ull >> 56);
  }
  // The cells as bytes in Position::cell layout.
  const std::uint8_t* cells() const {
    return reinterpret_cast<const std::uint8_t*>(&v_);
  }
  bool opp_empty() const {
    return ((low() & kTables.opp[M][0]) | (high() & kTables.opp[M][1])) == 0;
  }
  int final_margin() const {
    int own = v_[M], opp = v_[2 * M + 1];
    for (int i = 0; i < M; ++i) own += v_[i], opp += v_[M + 1 + i];
    return own - opp;
  }
  std::uint64_t key() const {
    const std::uint64_t lo = low() & (kTables.own[M] | kTables.opp[M][0]);
    const std::uint64_t hi = high() & kTables.opp[M][1];
    const std::uint64_t h = mum(lo ^ 0xA0761D6478BD642Full, hi ^ 0xE7037ED1A0B428DBull ^ M);
    const std::uint64_t k = mum(h ^ 0x8EBC6AF09C88C6E3ull, 0x589965CC75374CC3ull);
    return k + (k == 0);
  }

 private:
  static Bytes16 splat(int stones) {
    Bytes16 v;
    std::memset(&v, stones, sizeof v);
    return v;
  }
  std::uint64_t low() const {
    std::uint64_t w;
    std::memcpy(&w, &v_, sizeof w);
    return w;
  }
  std::uint64_t high() const {
    std::uint64_t w;
    std::memcpy(&w, reinterpret_cast<const char*>(&v_) + 8, sizeof w);
    return w;
  }

  Bytes16 v_;
};
static_assert(Board<RegisterBoard<6>>);

}  // namespace kalah
