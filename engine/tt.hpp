// Transposition table for the play-time search: bounds on future values keyed by the pits.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "move.hpp"

namespace kalah {

enum class Bound : std::uint8_t { kNone = 0, kLower = 1, kUpper = 2, kExact = 3 };

// An entry bounds the FUTURE value (search value minus the kalah difference), which depends only on
// the pits and the remaining depth, so positions that differ only in their kalahs share entries.
// `proven` marks values computed from exact leaves only (ends of game, oracle): they hold at any
// depth.
struct TTEntry {
  std::uint64_t key = 0;
  std::int16_t future = 0;
  std::int8_t depth = -1;
  Bound bound = Bound::kNone;
  bool proven = false;
  std::int8_t move = -1;  // 0-based best or refuting pit, -1 none
};

class TranspositionTable {
  // Folds the 128-bit product of a and b to 64 bits (wyhash's mixing step).
  static std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
    const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    return std::uint64_t(r) ^ std::uint64_t(r >> 64);
  }

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

  // The pits, side to move first; the kalahs are left out on purpose. Each side's m pits are
  // read as three words (unused lanes masked off) and folded by 64x64->128-bit multiplies.
  static std::uint64_t key(const Position& p) {
    std::uint64_t own[3], opp[3];
    std::memcpy(own, &p.cell[0], sizeof own);
    std::memcpy(opp, &p.cell[p.m + 1], sizeof opp);
    const auto& mask = detail::kPitMasks[p.m];
    const std::uint64_t a =
        mum((own[0] & mask[0]) ^ 0xA0761D6478BD642Full, (own[1] & mask[1]) ^ 0xE7037ED1A0B428DBull);
    const std::uint64_t b =
        mum((own[2] & mask[2]) ^ 0x8EBC6AF09C88C6E3ull, (opp[0] & mask[0]) ^ 0x589965CC75374CC3ull);
    const std::uint64_t c =
        mum((opp[1] & mask[1]) ^ 0x1D8E4E27C47D124Full, (opp[2] & mask[2]) ^ 0x9E3779B97F4A7C15ull);
    const std::uint64_t h = mum(a ^ 0xBF58476D1CE4E5B9ull ^ std::uint64_t(p.m), b ^ c);
    return h + (h == 0);  // never 0: 0 marks an empty slot (every bit stays usable as index)
  }

  const TTEntry* probe(std::uint64_t key) const {
    const TTEntry& e = table_[key & mask_];
    return e.key == key ? &e : nullptr;
  }
  void store(const TTEntry& e) { table_[e.key & mask_] = e; }
  // Hints that key's slot will be probed soon.
  void prefetch(std::uint64_t key) const { __builtin_prefetch(&table_[key & mask_]); }

 private:
  std::vector<TTEntry> table_;
  std::size_t mask_ = 0;
};

}  // namespace kalah
