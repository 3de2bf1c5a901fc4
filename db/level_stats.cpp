// level_stats: counts value signs by scanning every verified block of every level.
#include "level_stats.hpp"

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
    store.scan_level(t, n, [&](std::uint64_t, std::span<const std::int8_t> v) {
      for (const std::int8_t x : v) {
        s.positive += x > 0;
        s.negative += x < 0;
      }
    });
    s.zero = s.entries - s.positive - s.negative;
    out.push_back(s);
  }
  return out;
}

}  // namespace kalah
