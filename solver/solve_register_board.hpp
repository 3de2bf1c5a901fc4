// The solver's register board: the pits of an M-pit position in one 16-byte vector (M <= 7).
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "boards.hpp"
#include "position.hpp"

namespace kalah::solve_detail {

// The board interface of solve_board.hpp for boards of M pits a side fixed at compile time and at
// most 255 stones in pits: lane i holds cell i (Position::cell layout), both kalah lanes and the
// lanes above 2M+1 are 0 between moves. Sowing adds one precomputed vector (search_detail's
// ByteTables, shared with the play engine's board), the flip is a 128-bit rotate, and the key is
// two multiplies; solve_test.cpp checks its moves against play_move's board and its solves against
// the generic byte board's.
template <class R, int M>
class RegisterBoard {
  static_assert(M >= 1 && M <= search_detail::ByteTables::kMaxM);
  using Bytes16 = search_detail::Bytes16;
  static constexpr int kRing = 2 * M + 1;
  static constexpr int kHalf = 8 * (M + 1);  // bits of one side (pits and kalah)

 public:
  using Rules = R;
  static constexpr int kMaxM = M;
  static constexpr int kFixedCells = 2 * M;
  static constexpr int kMaxPitStones = 255;

  RegisterBoard() = default;  // uninitialized: only to be assigned to
  explicit RegisterBoard(const Position& p) : v_{} {
    for (int i = 0; i < M; ++i) {
      v_[i] = std::uint8_t(p.own_pit(i));
      v_[M + 1 + i] = std::uint8_t(p.opp_pit(i));
    }
  }

  static constexpr int m() { return M; }
  int pit(int i) const { return v_[i]; }
  int opp_pit(int i) const { return v_[M + 1 + i]; }
  // The byte sum by one multiply: the sum is at most 255, so no byte carries into the next.
  int own_stones() const { return int((low() & kT.own[M]) * 0x0101010101010101ull >> 56); }

  [[gnu::always_inline]] int play(int i, bool& again) {
    again = false;
    if constexpr (R::kRelayCapture) {
      int from = i;
      while (true) {
        const int s = v_[from];
        const int last = sow(from, s);
        if (last < M) {
          if (v_[last] > 1 && s > M - from) {
            from = last;
            continue;
          }
        } else if (last > M) {
          int won = 0;
          for (int c = last; c > M; --c) {
            const int v = v_[c];
            if (v != 2 && v != 3) break;
            won += v;
            v_[c] = 0;
          }
          v_[M] = std::uint8_t(v_[M] + won);
        }
        break;
      }
    } else {
      const int last = sow(i, v_[i]);
      if (last == M) {
        again = true;
      } else if (last < M && v_[last] == 1) {
        const int facing = 2 * M - last;
        const int opposite = v_[facing];
        if (R::kEmptyCapture || opposite > 0) {
          v_[last] = 0;
          v_[facing] = 0;
          v_[M] = std::uint8_t(v_[M] + 1 + opposite);
        }
      }
    }
    const int gain = v_[M];
    v_[M] = 0;
    if (!again) flip();
    return gain;
  }

  [[gnu::always_inline]] std::uint64_t key() const {
    const std::uint64_t h =
        search_detail::mum(low() ^ 0xA0761D6478BD642Full, high() ^ 0xE7037ED1A0B428DBull ^ M);
    const std::uint64_t k = search_detail::mum(h ^ 0x8EBC6AF09C88C6E3ull, 0x589965CC75374CC3ull);
    return k + (k == 0);
  }

  const std::uint8_t* cells() const { return reinterpret_cast<const std::uint8_t*>(&v_); }

  Position position() const {
    Position p;
    p.m = M;
    for (int i = 0; i < M; ++i) {
      p.own_pit(i) = v_[i];
      p.opp_pit(i) = v_[M + 1 + i];
    }
    return p;
  }

 private:
  static constexpr const search_detail::ByteTables& kT = search_detail::kTables;

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

  // Empties cell `from` (holding s stones) and sows them along the mover's ring; returns the
  // last cell sown.
  [[gnu::always_inline]] int sow(int from, int s) {
    Bytes16 v = v_ & search_detail::load(kT.keep_all_but[from]);
    if (s >= kRing) [[unlikely]] {
      Bytes16 laps;
      std::memset(&laps, s / kRing, sizeof laps);
      v += laps & search_detail::load(kT.ring_mask[M]);
      s %= kRing;
      if (s == 0) {
        v_ = v;
        return from;
      }
    }
    v_ = v + search_detail::load(kT.inc[M][from][s]);
    const int last = from + s;
    return last < kRing ? last : last - kRing;
  }

  [[gnu::always_inline]] void flip() {
#ifdef __SSE2__
    // Lanes [0, M] and [M+1, 2M+1] swap places by two byte shifts; the mask clears the lanes
    // above 2M+1, where the left shift moved some of the opponent's.
    const __m128i x = __m128i(v_);
    const __m128i board =
        _mm_set_epi64x(std::int64_t(kT.board[M][1]), std::int64_t(kT.board[M][0]));
    v_ = Bytes16(
        _mm_and_si128(_mm_or_si128(_mm_srli_si128(x, M + 1), _mm_slli_si128(x, M + 1)), board));
#else
    std::uint64_t w[2];
    std::memcpy(w, &v_, sizeof w);
    const unsigned __int128 x = (static_cast<unsigned __int128>(w[1]) << 64) | w[0];
    const unsigned __int128 y = (x >> kHalf) | (x << kHalf);
    w[0] = std::uint64_t(y) & kT.board[M][0];
    w[1] = std::uint64_t(y >> 64) & kT.board[M][1];
    std::memcpy(&v_, w, sizeof w);
#endif
  }

  Bytes16 v_;
};

}  // namespace kalah::solve_detail
