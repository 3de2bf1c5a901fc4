// Transposition table for the play-time search: bounds on future values keyed by the pits.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "position.hpp"

namespace kalah {

enum class Bound : std::uint8_t { kNone = 0, kLower = 1, kUpper = 2, kExact = 3 };

// An entry bounds the FUTURE value (search value minus the kalah difference), which depends only on
// the pits and the remaining depth, so positions that differ only in their kalahs share entries.
// `proven` marks values computed from exact leaves only (ends of game, oracle): they hold at any depth.
struct TTEntry {
  std::uint64_t key = 0;
  std::int16_t future = 0;
  std::int8_t depth = -1;
  Bound bound = Bound::kNone;
  bool proven = false;
  std::int8_t move = -1;  // 0-based best or refuting pit, -1 none
};

class TranspositionTable {
 public:
  explicit TranspositionTable(std::size_t bytes) { resize(bytes); }

  // Rounds down to a power of two entries (at least 1024).
  void resize(std::size_t bytes) {
    std::size_t n = 1024;
    while (n * 2 * sizeof(TTEntry) <= bytes) n *= 2;
    table_.assign(n, TTEntry{});
    mask_ = n - 1;
  }
  void clear() { std::fill(table_.begin(), table_.end(), TTEntry{}); }
  std::size_t entries() const { return table_.size(); }

  static std::uint64_t key(const Position& p) {
    // The pits, side to move first, mixed word by word; the kalahs are left out on purpose.
    std::uint64_t h = (0x9E3779B97F4A7C15ull + std::uint64_t(p.m)) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    std::uint64_t w[4] = {0, 0, 0, 0};
    static_assert(sizeof(Stones) * kMaxPits <= sizeof(w));
    std::memcpy(w, &p.cell[0], sizeof(Stones) * p.m);
    for (std::uint64_t x : w) h = (h ^ x) * 0xFF51AFD7ED558CCDull, h ^= h >> 32;
    std::memset(w, 0, sizeof w);
    std::memcpy(w, &p.cell[p.m + 1], sizeof(Stones) * p.m);
    for (std::uint64_t x : w) h = (h ^ x) * 0xC4CEB9FE1A85EC53ull, h ^= h >> 29;
    return h | 1;  // never 0: 0 marks an empty slot
  }

  const TTEntry* probe(std::uint64_t key) const {
    const TTEntry& e = table_[key & mask_];
    return e.key == key ? &e : nullptr;
  }
  void store(const TTEntry& e) { table_[e.key & mask_] = e; }

 private:
  std::vector<TTEntry> table_;
  std::size_t mask_ = 0;
};

}  // namespace kalah
