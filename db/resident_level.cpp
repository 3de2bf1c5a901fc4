// pack_values: a range of a level's int8 values into ResidentLevel's 5-bit words.
#include "db/resident_level.hpp"

#include <algorithm>
#include <atomic>

#include "db/db_error.hpp"

namespace kalah {

void pack_values(std::span<const std::int8_t> values, std::uint64_t first, int n,
                 std::uint64_t* words, const std::string& where) {
  constexpr std::uint64_t kPer = ResidentLevel::kPerWord;
  constexpr unsigned kBad = 0x80;  // above every 5-bit code
  // code[byte]: (v + n) / 2 for a value v of the level, kBad for any other byte.
  std::uint8_t code[256];
  for (int b = 0; b < 256; ++b) {
    const int v = std::int8_t(b);
    code[b] = v < -n || v > n || (v + n) % 2 != 0 ? kBad : std::uint8_t((v + n) / 2);
  }
  const std::uint64_t end = first + values.size();
  // Ranks [begin, stop) of one word as its bits; throws DbError naming the first corrupt value.
  const auto bits_checked = [&](std::uint64_t begin, std::uint64_t stop) {
    std::uint64_t word = 0;
    for (std::uint64_t r = begin; r < stop; ++r) {
      const std::int8_t v = values[r - first];
      const std::uint8_t c = code[std::uint8_t(v)];
      if (c == kBad)
        throw DbError(where + ": value " + std::to_string(v) + " at rank " + std::to_string(r) +
                      " is outside [-n, n] or not of n's parity (corrupt table)");
      word |= std::uint64_t(c) << (r % kPer * ResidentLevel::kBits);
    }
    return word;
  };
  // Words this range shares with a neighbouring one: OR-ed in, atomically.
  const auto merge = [&](std::uint64_t begin, std::uint64_t stop) {
    if (begin < stop) std::atomic_ref(words[begin / kPer]).fetch_or(bits_checked(begin, stop));
  };
  const std::uint64_t whole_begin = (first + kPer - 1) / kPer, whole_end = end / kPer;
  if (whole_begin >= whole_end) {  // no whole word: at most two partial ones
    const std::uint64_t cut = std::min(end, whole_begin * kPer);
    merge(first, cut);
    merge(cut, end);
    return;
  }
  merge(first, whole_begin * kPer);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(values.data()) - first;
  for (std::uint64_t w = whole_begin; w < whole_end; ++w) {
    const std::uint8_t* v = bytes + w * kPer;
    std::uint64_t word = 0;
    unsigned bad = 0;
    for (std::uint64_t j = 0; j < kPer; ++j) {
      const unsigned c = code[v[j]];
      bad |= c;
      word |= std::uint64_t(c) << (j * ResidentLevel::kBits);
    }
    words[w] = bad & kBad ? bits_checked(w * kPer, w * kPer + kPer) : word;
  }
  merge(whole_end * kPer, end);
}

}  // namespace kalah
