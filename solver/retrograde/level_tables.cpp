// LevelTables: level buffers, packed in place and shrunk once complete.
#include "solver/retrograde/level_tables.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "solver/retrograde/arena_threads.hpp"

namespace kalah {

LevelTables::LevelTables(int levels, bool packing) : packing_(packing) {
  resize(levels);
}

LevelTables::~LevelTables() {
  for (Buffer& b : levels_) std::free(b.bytes);
}

void LevelTables::resize(int levels) {
  if (levels <= size()) return;
  levels_.resize(levels);
  views_.resize(levels);
}

std::span<std::int8_t> LevelTables::open(int n, std::uint64_t entries, std::int8_t fill,
                                         int threads) {
  resize(n + 1);
  Buffer& b = levels_[n];
  std::free(b.bytes);
  b = Buffer{};
  views_[n] = ResidentLevel{};
  // Room for the level's packed words too (more than its bytes when it has fewer than 24
  // entries), so that pack() may write them in place.
  const std::uint64_t bytes = std::max<std::uint64_t>(
      {entries, std::max<std::uint64_t>(ResidentLevel::words_for(true, entries), 1) *
                    sizeof(std::uint64_t)});
  b.bytes = static_cast<std::int8_t*>(std::malloc(bytes));
  if (b.bytes == nullptr) throw std::bad_alloc();
  b.entries = entries;
  b.allocated = bytes;
  const std::uint64_t grain = std::uint64_t(1) << 22;
  if (threads == 1 || bytes <= grain) {
    std::memset(b.bytes, fill, bytes);
  } else {
    tbb::task_arena arena(arena_threads(threads));
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, bytes, grain),
                        [&](const tbb::blocked_range<std::uint64_t>& r) {
                          std::memset(b.bytes + r.begin(), fill, r.size());
                        });
    });
  }
  return {b.bytes, entries};
}

void LevelTables::pack(int n, int threads) {
  Buffer& b = levels_[n];
  if (!packing_ || !ResidentLevel::packs(n)) {
    views_[n] = ResidentLevel{reinterpret_cast<const std::uint64_t*>(b.bytes), n, false};
    return;
  }
  // Word w takes the values [12w, 12w + 12) and lands on bytes [8w, 8w + 8): every value is read
  // before its bytes are overwritten, walking forwards. Words [a, 1.5a) land on values of words
  // below a only, so once every word below a is packed they may be packed in any order.
  const std::uint64_t words = ResidentLevel::words_for(true, b.entries);
  const auto pack_words = [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t w = from; w < to; ++w) {
      const std::uint64_t begin = w * ResidentLevel::kPerWord;
      const std::uint64_t end = std::min<std::uint64_t>(begin + ResidentLevel::kPerWord, b.entries);
      std::uint64_t word = 0;
      for (std::uint64_t r = begin; r < end; ++r) {
        const int v = b.bytes[r];
        if (v < -n || v > n || (v + n) % 2 != 0)
          throw std::logic_error("level " + std::to_string(n) + ": value " + std::to_string(v) +
                                 " at rank " + std::to_string(r) + " is not a solved value");
        word |= std::uint64_t((v + n) / 2) << ((r - begin) * ResidentLevel::kBits);
      }
      std::memcpy(b.bytes + w * sizeof word, &word, sizeof word);
    }
  };
  const std::uint64_t grain = std::uint64_t(1) << 16;  // words
  std::uint64_t packed_words = std::min(words, threads == 1 ? words : grain);
  pack_words(0, packed_words);
  if (packed_words < words) {
    tbb::task_arena arena(arena_threads(threads));
    arena.execute([&] {
      while (packed_words < words) {
        const std::uint64_t to = std::min(words, packed_words + packed_words / 2);
        tbb::parallel_for(
            tbb::blocked_range<std::uint64_t>(packed_words, to, grain / 4),
            [&](const tbb::blocked_range<std::uint64_t>& r) { pack_words(r.begin(), r.end()); });
        packed_words = to;
      }
    });
  }
  const std::uint64_t packed = std::max<std::uint64_t>(words, 1) * sizeof(std::uint64_t);
  if (void* shrunk = std::realloc(b.bytes, packed)) {
    b.bytes = static_cast<std::int8_t*>(shrunk);
    b.allocated = packed;
  }
  views_[n] = ResidentLevel{reinterpret_cast<const std::uint64_t*>(b.bytes), n, true};
}

std::uint64_t LevelTables::memory_bytes() const {
  std::uint64_t total = 0;
  for (const Buffer& b : levels_) total += b.allocated;
  return total;
}

}  // namespace kalah
