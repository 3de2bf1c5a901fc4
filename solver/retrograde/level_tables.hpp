// LevelTables: the levels of a table being built, each one byte a value until it is packed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "db/resident_level.hpp"

namespace kalah {

// Marks an entry whose value is not computed yet; every real value lies in [-n, n], |n| <= 127.
constexpr std::int8_t kUnknownValue = -128;

// Largest stone count a table may hold: values are stored as int8 in [-n, n].
constexpr int kMaxTableStones = 127;

// Future margins by level, indexed by LevelIndex rank: the future margin of the arrangement for
// its side to move, or kUnknownValue. A level is opened in bytes (one a value) and solved; pack(n)
// then makes it readable through level(n). With packing on, levels up to ResidentLevel::kPackedMax
// are packed in place to 5 bits a value and their buffers shrunk, so a build to N holds
// packed(0..N-1) plus level N in bytes; with packing off every level stays in bytes (faster to
// read, 1.5x the memory of a packed level).
class LevelTables {
 public:
  explicit LevelTables(int levels = 0, bool packing = true);
  ~LevelTables();
  LevelTables(const LevelTables&) = delete;
  LevelTables& operator=(const LevelTables&) = delete;

  int size() const { return int(levels_.size()); }
  bool packing() const { return packing_; }

  // Level n in bytes, `entries` values all `fill` (replacing what level n held), written by
  // `threads` threads (0: one a core), so that a large level's first touch of its pages is shared.
  std::span<std::int8_t> open(int n, std::uint64_t entries, std::int8_t fill, int threads = 1);
  // Level n's bytes while it is open (before pack(n)).
  std::span<std::int8_t> bytes(int n) const { return {levels_[n].bytes, levels_[n].entries}; }
  // Level n, complete, becomes readable through level(n) (packed in place when packing is on, by
  // `threads` threads, 0: one a core).
  void pack(int n, int threads = 1);
  // Level n as the solver and the writer read it; valid after pack(n).
  const ResidentLevel& level(int n) const { return views_[n]; }
  // level(0), level(1), ... as one array.
  const ResidentLevel* levels() const { return views_.data(); }

  // Bytes the levels' buffers hold now.
  std::uint64_t memory_bytes() const;

 private:
  struct Buffer {
    std::int8_t* bytes = nullptr;  // malloc'ed; the packed words once packed
    std::uint64_t entries = 0;
    std::uint64_t allocated = 0;  // bytes
  };
  void resize(int levels);

  bool packing_;
  std::vector<Buffer> levels_;
  std::vector<ResidentLevel> views_;
};

}  // namespace kalah
