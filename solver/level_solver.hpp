// The retrograde kernel: future margins of one level from the levels below it (and itself).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "index.hpp"
#include "rules.hpp"

namespace kalah {

// Marks an entry whose value is not computed yet; every real value lies in [-n, n], |n| <= 127.
constexpr std::int8_t kUnknownValue = -128;

// Largest stone count a table may hold: values are stored as int8 in [-n, n].
constexpr int kMaxTableStones = 127;

// Tables of future margins, one int8 array per level. levels[n][rank] is the future margin of the
// arrangement `rank` of level n (LevelIndex order) for its side to move, or kUnknownValue.
using LevelTables = std::vector<std::vector<std::int8_t>>;

// Computes entries of level n given complete levels below n, for rule policy R and M pits a side.
// Same-level successors (sowings that stay on the mover's own side) are solved on demand by
// recursion; that terminates because such a move strictly lowers the total distance of all stones
// to their owners' kalahs. Entries may be solved concurrently from several threads: a value is
// written once it is final, and a duplicate computation writes the same value.
//
// Moves are applied on a byte ring (mover's pits, mover's kalah, opponent's pits) by the same rules
// as engine/move.hpp; tests compare every entry of small tables with a plain minimax over the
// engine.
template <class R, int M>
class LevelSolver {
 public:
  static constexpr int kRing = 2 * M + 1;

  LevelSolver(const LevelIndex& index, LevelTables& levels) : index_(index), levels_(levels) {
    // Ring cell of each significance for a successor: with the turn passed, the successor's own
    // pits are the ring's opponent cells; after an extra turn the ring is read as it is.
    for (int k = 0; k < 2 * M; ++k) {
      const int cell = index.significance_cell(k);
      const int own_ring = cell < M ? cell : cell + 1;  // ring: pits 0..M-1, kalah M, pits M+1..
      same_[k] = std::uint8_t(own_ring);
      passed_[k] = std::uint8_t(cell < M ? M + 1 + cell : cell - M);
    }
  }

  // Future margin of the arrangement x (2M cells, side to move first) holding n stones.
  int solve(const Stones* x, int n) {
    std::uint8_t base[kRing];
    int own = 0, opp = 0;
    for (int i = 0; i < M; ++i) {
      base[i] = std::uint8_t(x[i]);
      base[M + 1 + i] = std::uint8_t(x[M + i]);
      own += x[i];
      opp += x[M + i];
    }
    base[M] = 0;
    if (own == 0 || (!R::kRelayCapture && opp == 0)) return own - opp;  // the game is over
    // First every successor's slot (so the reads can be in flight together), then the values.
    int moves = 0;
    std::uint8_t pits[M];
    std::int8_t* slots[M];
    std::uint8_t rings[M][kRing];
    for (int i = 0; i < M; ++i) {
      if (base[i] == 0) continue;
      std::uint8_t* b = rings[moves];
      std::memcpy(b, base, kRing);
      const bool again = play(b, i);
      const int child_n = n - b[M];
      slots[moves] = &levels_[child_n][index_.rank_gathered(b, again ? same_ : passed_, child_n)];
      __builtin_prefetch(slots[moves]);
      pits[moves] = std::uint8_t(i | (again ? 0x80 : 0));
      ++moves;
    }
    int best = -kMaxTableStones - 1;
    for (int k = 0; k < moves; ++k) {
      const std::uint8_t* b = rings[k];
      const bool again = pits[k] & 0x80;
      int child = load(*slots[k]);
      if (child == kUnknownValue) {  // same level: strictly lower potential
        Stones c[2 * M];
        for (int j = 0; j < M; ++j) {
          c[j] = again ? b[j] : b[M + 1 + j];
          c[M + j] = again ? b[M + 1 + j] : b[j];
        }
        child = solve(c, n);
        store(*slots[k], child);
      }
      const int v = b[M] + (again ? child : -child);
      if (v > best) best = v;
    }
    return best;
  }

  // Solves and stores ranks [begin, end) of level n that are still unknown.
  void solve_range(int n, std::uint64_t begin, std::uint64_t end) {
    if (begin >= end) return;
    Stones x[2 * kMaxPits];
    index_.unrank(begin, n, x);
    std::int8_t* values = levels_[n].data();
    for (std::uint64_t r = begin;;) {
      if (load(values[r]) == kUnknownValue) store(values[r], solve(x, n));
      if (++r == end) break;
      index_.next(x);
    }
  }

 private:
  // Applies the move of own pit `pit` on the ring; the mover's gain accumulates in b[M].
  // Returns true when the mover moves again (kalah rules' extra turn).
  static bool play(std::uint8_t* b, int pit) {
    if constexpr (R::kRelayCapture) {
      int from = pit;
      while (true) {
        const int s = b[from];
        const int last = sow(b, from);
        if (last < M) {
          if (b[last] > 1 && s > M - from) {
            from = last;
            continue;
          }
        } else if (last > M) {
          for (int c = last; c > M && (b[c] == 2 || b[c] == 3); --c) {
            b[M] += b[c];
            b[c] = 0;
          }
        }
        return false;
      }
    } else {
      const int last = sow(b, pit);
      if (last == M) return true;
      if (last < M && b[last] == 1) {
        const int facing = 2 * M - last;
        if (R::kEmptyCapture || b[facing] > 0) {
          b[M] += std::uint8_t(1 + b[facing]);
          b[last] = 0;
          b[facing] = 0;
        }
      }
      return false;
    }
  }

  static int sow(std::uint8_t* b, int from) {
    int s = b[from];
    b[from] = 0;
    if (s >= kRing) {
      const std::uint8_t laps = std::uint8_t(s / kRing);
      for (int c = 0; c < kRing; ++c) b[c] += laps;
      s %= kRing;
      if (s == 0) return from;
    }
    int c = from;
    for (int k = 0; k < s; ++k) {
      if (++c == kRing) c = 0;
      ++b[c];
    }
    return c;
  }

  static std::int8_t load(const std::int8_t& slot) {
    return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
  }
  static void store(std::int8_t& slot, int v) {
    std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
  }

  const LevelIndex& index_;
  LevelTables& levels_;
  std::uint8_t same_[2 * M], passed_[2 * M];  // ring cell per significance, see the constructor
};

}  // namespace kalah
