// level_stats: counts value signs by scanning every verified block of every level.
#include "db/level_stats.hpp"

#include <atomic>

#include "db/db_error.hpp"

namespace kalah {

std::vector<LevelStats> level_stats(const Store& store, TableId t) {
  std::vector<LevelStats> out;
  const int claimed = store.complete_through(t);
  bool unbroken = true;  // every level below n is complete and sound
  for (int n = 0; n <= 255; ++n) {
    LevelStats s;
    s.n = n;
    std::optional<LevelMeta> meta;
    try {
      meta = store.level_meta(t, n);
    } catch (const DbError& e) {
      s.damage = e.what();
    }
    if (s.damage.empty() && (!meta || !meta->complete)) {
      unbroken = false;
      if (n > claimed) continue;  // a gap above the levels the table record claims
      s.damage = store.path() + ": " + to_string(t) + " level " + std::to_string(n) +
                 ": missing, though the table record claims levels 0.." + std::to_string(claimed);
    }
    if (s.damage.empty()) {
      s.format_version = meta->format_version;
      s.build = meta->build;
      s.entries = meta->entries;
      s.stored_bytes = meta->compressed_bytes;
      std::atomic<std::uint64_t> positive{0}, negative{0};
      try {
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
      } catch (const DbError& e) {
        s.entries = s.stored_bytes = 0;
        s.damage = e.what();
      }
    }
    unbroken = unbroken && s.damage.empty();
    s.complete = unbroken && n <= claimed;
    out.push_back(s);
  }
  return out;
}

}  // namespace kalah
