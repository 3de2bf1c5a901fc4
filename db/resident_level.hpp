// ResidentLevel: one database level held in memory, its future margins packed by storage rank.
#pragma once

#include <cstdint>

namespace kalah {

// The future margins f of level n by storage rank. A packed level keeps (f + n) / 2 in 5 bits,
// 12 to a 64-bit word (0.625 bytes a position: a 6-pit <= 24-stone table takes 0.73 GiB instead
// of 1.17, and the solver's random reads into it land on fewer pages); that needs n <= kPackedMax
// and every f of n's parity, as every solved value is (the n stones end in the two kalahs). Other
// levels keep f in one signed byte each.
struct ResidentLevel {
  static constexpr int kPackedMax = 31;
  static constexpr int kPerWord = 12;
  static constexpr int kBits = 5;

  const std::uint64_t* words = nullptr;
  int n = 0;
  bool packed = false;

  // 64-bit words a level of `positions` values takes.
  static std::uint64_t words_for(bool packed, std::uint64_t positions) {
    return packed ? (positions + kPerWord - 1) / kPerWord : (positions + 7) / 8;
  }

  [[gnu::always_inline]] int future(std::uint64_t rank) const {
    if (packed) {
      const auto code = int(words[rank / kPerWord] >> (rank % kPerWord * kBits) & 31);
      return 2 * code - n;
    }
    return reinterpret_cast<const std::int8_t*>(words)[rank];
  }
};

}  // namespace kalah
