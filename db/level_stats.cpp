// level_stats: counts value signs by scanning every verified block of every level.
#include "level_stats.hpp"

#include <atomic>

namespace kalah {

std::vector<LevelStats> level_stats(const Store& store, TableId t) {
  std::vector<LevelStats> out;
  const int through = store.complete_through(t);
  for (int n = 0; n <= 255; ++n) {
    const auto meta = store.level_meta(t, n);
    if (!meta || !meta->complete) continue;
    LevelStats s;
    s.n = n;
    s.complete = n <= through;
    s.entries = meta->entries;
    s.stored_bytes = meta->compressed_bytes;
    std::atomic<std::uint64_t> positive{0}, negative{0};
    store.scan_level_parallel(t, n, 0, [&](std::uint64_t, std::span<const std::int8_t> v) {
      std::uint64_t pos = 0, neg = 0;
      for (const std::int8_t x : v) {
        pos += x > 0;
        neg += x < 0;
      }
      positive += pos;
      negative += neg;
    });
    s.positive = positive;
    s.negative = negative;
    s.zero = s.entries - s.positive - s.negative;
    out.push_back(s);
  }
  return out;
}

}  // namespace kalah
