// WideBoard: the Board over a Position's 16-bit cells, for any board size and stone count.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "engine/board.hpp"
#include "engine/position.hpp"

namespace kalah {

namespace detail {

// Pit masks for side_empty: the first m 16-bit lanes of three 64-bit words set.
inline constexpr auto kPitMasks = [] {
  std::array<std::array<std::uint64_t, 3>, kMaxPits + 1> masks{};
  for (int m = 0; m <= kMaxPits; ++m) {
    std::array<Stones, 12> lanes{};
    for (int i = 0; i < m; ++i) lanes[i] = 0xFFFF;
    masks[m] = std::bit_cast<std::array<std::uint64_t, 3>>(lanes);
  }
  return masks;
}();

}  // namespace detail

class WideBoard : public CellEdits<WideBoard> {
 public:
  static constexpr int kFixedM = 0;  // m is chosen at run time
  static constexpr int kMaxStones = kMaxTotalStones;

  WideBoard() = default;
  explicit WideBoard(const Position& p) : p_(p) {}

  int m() const { return p_.m; }
  int cell(int i) const { return p_.cell[i]; }
  void set(int i, int stones) { p_.cell[i] = Stones(stones); }

  int sow(int from) {
    const int ring = 2 * p_.m + 1;
    int s = take(from);
    if (s >= ring) [[unlikely]] {
      const Stones laps = Stones(s / ring);
      for (int c = 0; c < ring; ++c) p_.cell[c] += laps;
      s %= ring;
      if (s == 0) return from;
    }
    // The s < ring cells after `from` get one stone each: cells (from, stop] up to the ring's end,
    // then [0, wrap] from its start. Branch-free, eight cells at a time.
    const int end = from + s;
    const int stop = end < ring ? end : ring - 1;
    const int wrap = end - ring;  // < 0: no wrap
    using Lanes = std::int16_t __attribute__((vector_size(16)));
    const Lanes lo = Lanes{} + std::int16_t(from), hi = Lanes{} + std::int16_t(stop),
                wr = Lanes{} + std::int16_t(wrap);
    Lanes index = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int c = 0; c < ring; c += 8) {  // the last load ends at cell 23 < the 26 cells
      Lanes v;
      std::memcpy(&v, &p_.cell[c], sizeof v);
      v -= ((index > lo) & (index <= hi)) | (index <= wr);  // a true lane is -1
      std::memcpy(&p_.cell[c], &v, sizeof v);
      index += 8;
      if (c == 16) {  // ring 25 (12 pits): cell 24 lies past the third block
        if (24 > from && 24 <= stop) ++p_.cell[24];
        break;
      }
    }
    return end < ring ? end : wrap;
  }

  void flip() { p_.flip(); }
  int own_stones() const { return p_.own_pit_stones(); }
  bool own_empty() const { return side_empty(0); }
  bool opp_empty() const { return side_empty(p_.m + 1); }
  int kalah_difference() const { return p_.kalah_difference(); }
  int final_margin() const { return kalah::final_margin(p_); }
  const Position& position() const { return p_; }
  const Stones* cells() const { return p_.cell.data(); }

  // The pits, each side's m as three words (unused lanes masked off), folded by multiplies.
  std::uint64_t key() const {
    std::uint64_t own[3], opp[3];
    std::memcpy(own, &p_.cell[0], sizeof own);
    std::memcpy(opp, &p_.cell[p_.m + 1], sizeof opp);
    const auto& mask = detail::kPitMasks[p_.m];
    const std::uint64_t a =
        mum((own[0] & mask[0]) ^ 0xA0761D6478BD642Full, (own[1] & mask[1]) ^ 0xE7037ED1A0B428DBull);
    const std::uint64_t b =
        mum((own[2] & mask[2]) ^ 0x8EBC6AF09C88C6E3ull, (opp[0] & mask[0]) ^ 0x589965CC75374CC3ull);
    const std::uint64_t c =
        mum((opp[1] & mask[1]) ^ 0x1D8E4E27C47D124Full, (opp[2] & mask[2]) ^ 0x9E3779B97F4A7C15ull);
    const std::uint64_t h = mum(a ^ 0xBF58476D1CE4E5B9ull ^ std::uint64_t(p_.m), b ^ c);
    return h + (h == 0);
  }

 private:
  // True when the m cells from `first` (0: the mover's pits, m+1: the opponent's) are all empty.
  bool side_empty(int first) const {
    static_assert(sizeof(Stones) * 12 == 3 * sizeof(std::uint64_t));
    static_assert(sizeof(p_.cell) >= sizeof(Stones) * (kMaxPits + 1 + 12));  // load stays inside
    std::uint64_t w[3];
    std::memcpy(w, &p_.cell[first], sizeof w);
    const auto& mask = detail::kPitMasks[p_.m];
    return ((w[0] & mask[0]) | (w[1] & mask[1]) | (w[2] & mask[2])) == 0;
  }

  Position p_;
};
static_assert(Board<WideBoard>);

}  // namespace kalah
