// pack_level: a level's int8 values into ResidentLevel's 5-bit words.
#include "resident_level.hpp"

#include <algorithm>

#include "db_error.hpp"
#include "for_each_index.hpp"

namespace kalah {

void pack_level(std::span<const std::int8_t> values, int n, std::uint64_t* words, unsigned threads,
                const std::string& where) {
  constexpr std::uint64_t kWordsPerTask = 1 << 16;
  constexpr int kPer = ResidentLevel::kPerWord;
  constexpr unsigned kBad = 0x80;  // above every 5-bit code
  // code[byte]: (v + n) / 2 for a value v of the level, kBad for any other byte.
  std::uint8_t code[256];
  for (int b = 0; b < 256; ++b) {
    const int v = std::int8_t(b);
    code[b] = v < -n || v > n || (v + n) % 2 != 0 ? kBad : std::uint8_t((v + n) / 2);
  }
  // Values [begin, end) as one word; throws DbError naming the first value that is corrupt.
  const auto pack_checked = [&](std::uint64_t begin, std::uint64_t end) {
    std::uint64_t word = 0;
    for (std::uint64_t r = begin; r < end; ++r) {
      const std::uint8_t c = code[std::uint8_t(values[r])];
      if (c == kBad)
        throw DbError(where + ": value " + std::to_string(values[r]) + " at rank " +
                      std::to_string(r) +
                      " is outside [-n, n] or not of n's parity (corrupt table)");
      word |= std::uint64_t(c) << ((r - begin) * ResidentLevel::kBits);
    }
    return word;
  };
  const std::uint64_t count = ResidentLevel::words_for(true, values.size());
  const std::uint64_t full = values.size() / kPer;  // words of kPer values
  for_each_index((count + kWordsPerTask - 1) / kWordsPerTask, threads, [&](std::size_t task) {
    const std::uint64_t last = std::min(count, (task + 1) * kWordsPerTask);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(values.data());
    for (std::uint64_t w = task * kWordsPerTask; w < last; ++w) {
      if (w >= full) {
        words[w] = pack_checked(w * kPer, values.size());
        continue;
      }
      const std::uint8_t* v = bytes + w * kPer;
      std::uint64_t word = 0;
      unsigned bad = 0;
      for (int j = 0; j < kPer; ++j) {
        const unsigned c = code[v[j]];
        bad |= c;
        word |= std::uint64_t(c) << (j * ResidentLevel::kBits);
      }
      words[w] = bad & kBad ? pack_checked(w * kPer, w * kPer + kPer) : word;
    }
  });
}

}  // namespace kalah
