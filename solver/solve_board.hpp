// The solver's boards: the pits of a position from the side to move, with the move rule applied.
#pragma once

#include <cstdint>
#include <cstring>

#include "move.hpp"
#include "position.hpp"

namespace kalah::solve_detail {

// What every board offers the search (R: the rule policy):
//   static constexpr int kMaxM       the most pits a side it holds
//   static constexpr int kFixedCells 2m when m is fixed at compile time, else 0
//   explicit Board(const Position&)  the pits of p; the kalahs are not kept
//   int m() const; int pit(int i) const; int opp_pit(int i) const; int own_stones() const
//   int play(int i, bool& again)     plays own pit i (0-based, non-empty) and returns the stones
//                                    the move put into the mover's kalah; unless again (extra
//                                    turn) the board is then seen from the opponent
//   std::uint64_t key() const        hash of the pits, side to move first; never 0
//   Position position() const        the pits with empty kalahs, for the oracle
//   const T* cells() const           the cells in Position::cell layout (kalahs hold 0)
// The future margin of a board depends only on its pits, which is all a board holds.

inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h + (h == 0);
}

// The reference board: a Position moved by engine's play_move<R>, the single source of rule truth.
template <class R>
class PositionBoard {
 public:
  using Rules = R;
  static constexpr int kMaxM = kMaxPits;
  static constexpr int kFixedCells = 0;

  PositionBoard() = default;
  explicit PositionBoard(const Position& p) : p_(p) {
    p_.own_kalah() = 0;
    p_.opp_kalah() = 0;
    p_.mover = Side::kSouth;
  }
  int m() const { return p_.m; }
  int pit(int i) const { return p_.cell[i]; }
  int opp_pit(int i) const { return p_.opp_pit(i); }
  int own_stones() const { return p_.own_pit_stones(); }

  [[gnu::always_inline]] int play(int i, bool& again) {
    again = play_move<R>(p_, i);
    Stones& kalah = again ? p_.own_kalah() : p_.opp_kalah();
    const int gain = kalah;
    kalah = 0;
    p_.mover = Side::kSouth;
    return gain;
  }

  [[gnu::always_inline]] std::uint64_t key() const {
    std::uint64_t w[2 * kMaxPits / 4] = {};
    std::memcpy(w, &p_.cell[0], sizeof(Stones) * p_.m);
    std::memcpy(reinterpret_cast<char*>(w) + sizeof(Stones) * p_.m, &p_.cell[p_.m + 1],
                sizeof(Stones) * p_.m);
    std::uint64_t h = 0x9E3779B97F4A7C15ull * std::uint64_t(p_.m);
    for (int k = 0; k < (p_.m + 1) / 2; ++k) h = mix(h ^ w[k]);
    return h;
  }

  Position position() const { return p_; }
  const Stones* cells() const { return p_.cell.data(); }

 private:
  Position p_;
};

// The fast board: one byte per cell (requires at most 255 stones in pits), same layout as
// Position::cell with both kalahs kept at 0 between moves; byte 31 holds m. Its sowing mirrors
// play_move<R>; tests/solve_test.cpp checks the two agree move by move on every small board.
template <class R>
class ByteBoard {
 public:
  using Rules = R;
  static constexpr int kMaxM = kMaxPits;
  static constexpr int kFixedCells = 0;
  static constexpr int kMaxPitStones = 255;

  ByteBoard() = default;  // uninitialized: only to be assigned to
  explicit ByteBoard(const Position& p) {
    std::memset(c_, 0, sizeof c_);
    for (int j = 0; j < 2 * p.m + 2; ++j) c_[j] = std::uint8_t(p.cell[j]);
    c_[p.m] = c_[2 * p.m + 1] = 0;
    c_[kM] = std::uint8_t(p.m);
  }
  int m() const { return c_[kM] & 15; }  // m <= 12; the mask tells the compiler cells < 32
  int pit(int i) const { return c_[i]; }
  int opp_pit(int i) const { return c_[m() + 1 + i]; }
  int own_stones() const {
    int n = 0;
    for (int i = 0; i < m(); ++i) n += c_[i];
    return n;
  }

  [[gnu::always_inline]] int play(int i, bool& again) {
    const int m = this->m();
    again = false;
    if constexpr (R::kRelayCapture) {
      int from = i;
      while (true) {
        const int s = c_[from];
        const int last = sow(from);
        if (last < m) {
          if (c_[last] > 1 && s > m - from) {
            from = last;
            continue;
          }
        } else if (last > m) {
          for (int c = last; c > m && (c_[c] == 2 || c_[c] == 3); --c) {
            c_[m] += c_[c];
            c_[c] = 0;
          }
        }
        break;
      }
    } else {
      const int last = sow(i);
      if (last == m) {
        again = true;
      } else if (last < m && c_[last] == 1) {
        const int facing = 2 * m - last;
        if (R::kEmptyCapture || c_[facing] > 0) {
          c_[m] += std::uint8_t(1 + c_[facing]);
          c_[last] = 0;
          c_[facing] = 0;
        }
      }
    }
    const int gain = c_[m];
    c_[m] = 0;
    if (!again) flip();
    return gain;
  }

  [[gnu::always_inline]] std::uint64_t key() const {
    std::uint64_t w[4];
    std::memcpy(w, c_, sizeof w);
    std::uint64_t h = mix(w[0] ^ (0x9E3779B97F4A7C15ull * std::uint64_t(m())));
    for (int k = 1; k < words(); ++k) h = mix(h ^ w[k]);
    return h;
  }

  const std::uint8_t* cells() const { return c_; }

  Position position() const {
    Position p;
    p.m = m();
    for (int i = 0; i < p.m; ++i) {
      p.own_pit(i) = c_[i];
      p.opp_pit(i) = c_[p.m + 1 + i];
    }
    return p;
  }

 private:
  static constexpr int kM = 31;  // the byte that holds m (cells use at most 2 * 12 + 2 bytes)

  int words() const { return (2 * m() + 2 + 7) / 8; }

  // Sows cell `from` along the mover's ring [0, 2m]; returns the last cell sown (as detail::sow).
  int sow(int from) {
    const int ring = 2 * m() + 1;
    int s = c_[from];
    c_[from] = 0;
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

  alignas(32) std::uint8_t c_[32];
};

}  // namespace kalah::solve_detail
