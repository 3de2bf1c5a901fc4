// pack_level: a level's int8 values into ResidentLevel's 5-bit words.
#include "resident_level.hpp"

#include <algorithm>

#include "db_error.hpp"
#include "for_each_index.hpp"

namespace kalah {

void pack_level(std::span<const std::int8_t> values, int n, std::uint64_t* words, unsigned threads,
                const std::string& where) {
  constexpr std::uint64_t kWordsPerTask = 1 << 16;
  const std::uint64_t count = ResidentLevel::words_for(true, values.size());
  for_each_index((count + kWordsPerTask - 1) / kWordsPerTask, threads, [&](std::size_t task) {
    for (std::uint64_t w = task * kWordsPerTask; w < std::min(count, (task + 1) * kWordsPerTask);
         ++w) {
      std::uint64_t word = 0;
      const std::uint64_t begin = w * ResidentLevel::kPerWord;
      const std::uint64_t end =
          std::min<std::uint64_t>(begin + ResidentLevel::kPerWord, values.size());
      for (std::uint64_t r = begin; r < end; ++r) {
        const int v = values[r];
        if (v < -n || v > n || (v + n) % 2 != 0)
          throw DbError(where + ": value " + std::to_string(v) + " at rank " + std::to_string(r) +
                        " is outside [-n, n] or not of n's parity (corrupt table)");
        word |= std::uint64_t((v + n) / 2) << ((r - begin) * ResidentLevel::kBits);
      }
      words[w] = word;
    }
  });
}

}  // namespace kalah
