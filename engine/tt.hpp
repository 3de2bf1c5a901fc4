// Transposition table for the play-time search: bounds on future values keyed by the pits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "engine/huge_buffer.hpp"
#include "engine/position.hpp"

namespace kalah {

enum class Bound : std::uint8_t { kNone = 0, kLower = 1, kUpper = 2, kExact = 3 };

// An entry bounds the FUTURE value (search value minus the kalah difference), which depends only on
// the pits and the remaining depth, so positions that differ only in their kalahs share entries.
// `proven` marks values computed from exact leaves only (ends of game, oracle): they hold at any
// depth. Keys are the search boards' hashes of the pits (engine/board.hpp), never 0.
struct TTEntry {  // 16 bytes
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

  // Rounds down to a power of two entries (at least 1024). The table lives on huge pages
  // (HugeBuffer): a probe is a random access, and TLB misses would dominate it.
  void resize(std::size_t bytes) {
    std::size_t n = 1024;
    while (n * 2 * sizeof(TTEntry) <= bytes) n *= 2;
    memory_ = HugeBuffer(n * sizeof(TTEntry));
    table_ = memory_.as<TTEntry>();
    entries_ = n;
    mask_ = n - 1;
    clear();
  }
  void clear() { std::fill(table_, table_ + entries_, TTEntry{}); }
  std::size_t entries() const { return entries_; }

  const TTEntry* probe(std::uint64_t key) const {
    const TTEntry& e = table_[key & mask_];
    return e.key == key ? &e : nullptr;
  }
  void store(const TTEntry& e) { table_[e.key & mask_] = e; }
  // Hints that key's slot will be probed soon.
  // Forced inline: GCC may delete a call to an out-of-line prefetch wrapper, deeming it pure.
  [[gnu::always_inline]] void prefetch(std::uint64_t key) const {
    __builtin_prefetch(&table_[key & mask_]);
  }

 private:
  HugeBuffer memory_;
  TTEntry* table_ = nullptr;  // in memory_
  std::size_t entries_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace kalah
