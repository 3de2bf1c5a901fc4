// ResidentLevel: one level's future margins held in memory, packed 5 bits a value where they fit.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace kalah {

// The future margins f of level n by rank (the probe's storage rank, the generator's LevelIndex
// rank). A packed level keeps (f + n) / 2 in 5 bits,
// 12 to a 64-bit word (0.667 bytes a position: a 6-pit <= 24-stone table takes 0.78 GiB instead
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

  // Whether a level n is packed.
  static constexpr bool packs(int n) { return n <= kPackedMax; }

  // 64-bit words a level of `positions` values takes.
  static std::uint64_t words_for(bool packed, std::uint64_t positions) {
    return packed ? (positions + kPerWord - 1) / kPerWord : (positions + 7) / 8;
  }

  [[gnu::always_inline]] int future(std::uint64_t rank) const {
    return packed ? packed_future(rank) : reinterpret_cast<const std::int8_t*>(words)[rank];
  }
  // future() of a packed level.
  [[gnu::always_inline]] int packed_future(std::uint64_t rank) const {
    const auto code = int(words[rank / kPerWord] >> (rank % kPerWord * kBits) & 31);
    return 2 * code - n;
  }
  // Where future(rank) reads, for a prefetch.
  [[gnu::always_inline]] const void* address(std::uint64_t rank) const {
    return packed ? static_cast<const void*>(words + rank / kPerWord)
                  : static_cast<const void*>(reinterpret_cast<const std::int8_t*>(words) + rank);
  }
};

// Packs the values of ranks [first, first + values.size()) of level n <= kPackedMax (of n's
// parity, checked) into words as ResidentLevel reads them. Words wholly inside the range are
// written; a word shared with a neighbouring range is OR-ed into atomically, so disjoint ranges may
// be packed from several threads at once into words that start zeroed. Throws DbError naming
// `where` and the rank of a value out of range or parity.
void pack_values(std::span<const std::int8_t> values, std::uint64_t first, int n,
                 std::uint64_t* words, const std::string& where);

}  // namespace kalah
