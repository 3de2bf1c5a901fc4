// ByteArrayBoard: the Board as one byte a cell in memory, for at most 255 stones on any board size.
#pragma once

#include <cstdint>
#include <cstring>

#include "engine/board.hpp"
#include "engine/position.hpp"

namespace kalah {

// 32 bytes: cells in Position::cell layout (at most 2 * 12 + 2), the rest 0 but byte 31, which
// holds m when M == 0 (m chosen at run time); M > 0 fixes m at compile time. No cell exceeds 255
// because the board holds at most 255 stones.
template <int M = 0>
class ByteArrayBoard : public CellEdits<ByteArrayBoard<M>> {
  static_assert(M >= 0 && M <= kMaxPits);

 public:
  static constexpr int kFixedM = M;  // 0: m is chosen at run time
  static constexpr int kMaxStones = 255;

  ByteArrayBoard() = default;  // uninitialized: only to be assigned to
  explicit ByteArrayBoard(const Position& p) : ByteArrayBoard(empty(p.m)) {
    for (int j = 0; j < 2 * p.m + 2; ++j) c_[j] = std::uint8_t(p.cell[j]);
  }
  // The board of m pits a side (M or, when M == 0, any) with every cell empty.
  static ByteArrayBoard empty(int m = M) {
    ByteArrayBoard b;
    std::memset(b.c_, 0, sizeof b.c_);
    if constexpr (M == 0) b.c_[kM] = std::uint8_t(m);
    return b;
  }

  int m() const {
    if constexpr (M > 0) {
      return M;
    } else {
      return c_[kM] & 15;  // m <= 12; the mask tells the compiler cells < 32
    }
  }
  int cell(int i) const { return c_[i]; }
  void set(int i, int stones) { c_[i] = std::uint8_t(stones); }

  int sow(int from) {
    const int ring = 2 * m() + 1;
    int s = this->take(from);
    if (s >= ring) {
      const std::uint8_t laps = std::uint8_t(s / ring);
      for (int c = 0; c < ring; ++c) c_[c] += laps;
      s %= ring;
      if (s == 0) return from;
    }
    int c = from;
    for (int k = 0; k < s; ++k) {
      if (++c == ring) c = 0;
      ++c_[c];
    }
    return c;
  }

  // Swaps the two sides' cells [0, h) and [h, 2h), h = m + 1 <= 13, with two 16-byte moves: the
  // bytes from 2h on are 0 but for byte 31 (m), which no move reaches.
  [[gnu::always_inline]] void flip() {
    const int h = m() + 1;
    std::uint64_t own[2], opp[2];
    std::memcpy(own, c_, 16);
    std::memcpy(opp, c_ + h, 16);
    if (h >= 8) {
      own[1] &= (std::uint64_t(1) << (8 * (h - 8))) - 1;
    } else {
      own[0] &= (std::uint64_t(1) << (8 * h)) - 1;
      own[1] = 0;
    }
    std::memcpy(c_, opp, 16);
    std::memcpy(c_ + h, own, 16);
  }

  int own_stones() const {
    int n = 0;
    for (int i = 0; i < m(); ++i) n += c_[i];
    return n;
  }
  int opp_stones() const {
    int n = 0;
    for (int i = 0; i < m(); ++i) n += c_[m() + 1 + i];
    return n;
  }
  bool own_empty() const { return own_stones() == 0; }
  bool opp_empty() const { return opp_stones() == 0; }

  int kalah_difference() const { return int(c_[m()]) - int(c_[2 * m() + 1]); }
  int final_margin() const { return c_[m()] + own_stones() - c_[2 * m() + 1] - opp_stones(); }

  [[gnu::always_inline]] std::uint64_t key() const {
    std::uint64_t w[4];
    std::memcpy(w, c_, sizeof w);
    const int m = this->m(), k = 2 * m + 1;  // the kalahs' bytes are left out
    w[m / 8] &= ~(std::uint64_t(0xFF) << (8 * (m % 8)));
    w[k / 8] &= ~(std::uint64_t(0xFF) << (8 * (k % 8)));
    std::uint64_t h = mix(w[0] ^ (0x9E3779B97F4A7C15ull * std::uint64_t(m)));
    for (int i = 1; i < (2 * m + 2 + 7) / 8; ++i) h = mix(h ^ w[i]);
    return h;
  }

  const std::uint8_t* cells() const { return c_; }

  Position position() const {
    Position p;
    p.m = m();
    for (int j = 0; j < 2 * p.m + 2; ++j) p.cell[j] = c_[j];
    return p;
  }

 private:
  static constexpr int kM = 31;  // the byte that holds m when M == 0

  alignas(32) std::uint8_t c_[32];
};
static_assert(Board<ByteArrayBoard<>>);

}  // namespace kalah
