// The solver's exact memo: positions with few stones in pits solved once, kept in a dense array.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include "db/arrangements.hpp"
#include "engine/huge_buffer.hpp"

#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "solver/exhaustive/solve_board.hpp"

namespace kalah::solve_detail {

// Exact future margins of every board with at most max_stones() stones in pits, computed on first
// request by plain minimax (no pruning: each position is solved once) and stored one byte each,
// indexed densely by (stones in pits, rank of the arrangement). Near the end of the game the
// alpha-beta search would otherwise re-prove the same small positions under ever new windows.
template <class B>
class ExactMemo {
 public:
  using R = typename B::Rules;
  static constexpr int kMaxValue = 126;  // |future| <= n, stored as future + 128 in a byte

  // The largest level count L (<= kMaxValue) whose array of all levels 0..L fits `bytes`;
  // -1 when not even level 0 fits.
  static int stones_for_bytes(int m, std::size_t bytes) {
    int l = -1;
    double total = 0;
    while (l < kMaxValue) {
      total += double(arrangements(2 * m, l + 1));
      if (total > double(bytes)) break;
      ++l;
    }
    return l;
  }

  // A memo for boards of m pits a side and up to max_stones (<= kMaxValue) stones in pits.
  ExactMemo(int m, int max_stones) : m_(m), max_(max_stones), cells_(2 * m) {
    offset_.resize(max_ + 2, 0);
    for (int n = 0; n <= max_; ++n) offset_[n + 1] = offset_[n] + arrangements(cells_, n);
    // below_[(i * (max_ + 1) + r) * (max_ + 1) + v]: arrangements of r stones in cells i.. of the
    // 2m whose cell i holds fewer than v.
    const int side = max_ + 1;
    below_.assign(std::size_t(cells_) * side * side, 0);
    for (int i = 0; i < cells_; ++i)
      for (int r = 0; r <= max_; ++r)
        for (int v = 1; v <= r; ++v)
          below_[(i * side + r) * side + v] =
              below_[(i * side + r) * side + v - 1] + arrangements(cells_ - i - 1, r - (v - 1));
    length_ = offset_[max_ + 1];
    memory_ = HugeBuffer(length_);
    table_ = memory_.as<std::uint8_t>();
  }
  ExactMemo(const ExactMemo&) = delete;
  ExactMemo& operator=(const ExactMemo&) = delete;

  int max_stones() const { return max_; }
  std::size_t bytes() const { return length_; }

  // Positions with at most oracle->max_stones() stones in pits are asked from the oracle instead.
  void set_oracle(ExactOracle* oracle) {
    oracle_ = oracle;
    oracle_max_ = oracle != nullptr ? oracle->max_stones() : -1;
  }

  // The exact future margin of b, which holds n <= max_stones() stones in pits. `hooks` gets
  // hooks.count_solved() for each position solved here and hooks.oracle_hit() for each oracle
  // answer; once hooks.stopped() is true the result is meaningless and nothing unfinished is
  // stored.
  template <class Hooks>
  int value(const B& b, int n, Hooks& hooks) {
    if (n <= oracle_max_) {
      if (const std::optional<int> f = oracle_->future(b.position())) {
        hooks.oracle_hit();
        return *f;
      }
    }
    std::uint8_t& slot = table_[index(b, n)];
    if (const std::uint8_t v = get(slot); v != 0) return int(v) - 128;
    return solve(b, n, slot, hooks);
  }

  // Starts loading the entry of b (n stones in pits, above the oracle) into the cache.
  // Forced inline: GCC may delete a call to an out-of-line prefetch wrapper, deeming it pure.
  [[gnu::always_inline]] void prefetch(const B& b, int n) const {
    __builtin_prefetch(&table_[index(b, n)]);
  }

 private:
  // Solves b (not over, not stored yet) into `slot`. The children's entries are prefetched before
  // the first one is looked at.
  template <class Hooks>
  int solve(const B& b, int n, std::uint8_t& slot, Hooks& hooks) {
    hooks.count_solved();
    if (hooks.stopped()) return 0;
    int v;
    if (game_over(b, n, &v)) {
      set(slot, v);
      return v;
    }
    struct Child {
      B b;
      std::size_t at;  // array index, or kNone: over or for the oracle
      int gain;
      int over;  // the future margin when is_over
      bool again;
      bool is_over;
    };
    constexpr std::size_t kNone = ~std::size_t(0);
    Child kids[B::kMaxM];
    int count = 0;
    for (int i = 0; i < m_; ++i) {
      if (b.pit(i) == 0) continue;
      Child& c = kids[count++];
      c.b = b;
      c.gain = c.b.play(i, c.again);
      const int nc = n - c.gain;
      c.at = kNone;
      c.is_over = game_over(c.b, nc, &c.over);
      if (!c.is_over && nc > oracle_max_) {
        c.at = index(c.b, nc);
        __builtin_prefetch(&table_[c.at]);
      }
    }
    v = -n - 1;
    for (int k = 0; k < count; ++k) {
      const Child& c = kids[k];
      const int nc = n - c.gain;
      int f;
      if (c.is_over) {
        f = c.over;
      } else if (c.at != kNone) {
        const std::uint8_t known = get(table_[c.at]);
        f = known != 0 ? int(known) - 128 : solve(c.b, nc, table_[c.at], hooks);
      } else {
        f = value(c.b, nc, hooks);
      }
      if (hooks.stopped()) return 0;
      v = std::max(v, future_after_move(c.gain, c.again, f));
    }
    set(slot, v);
    return v;
  }

  // Entries are read and written whole by any number of threads (solves sharing the memo): a
  // value once written never changes, so a racing solve only repeats work.
  static std::uint8_t get(std::uint8_t& slot) {
    return std::atomic_ref<std::uint8_t>(slot).load(std::memory_order_relaxed);
  }
  static void set(std::uint8_t& slot, int v) {
    std::atomic_ref<std::uint8_t>(slot).store(std::uint8_t(v + 128), std::memory_order_relaxed);
  }

  std::size_t index(const B& b, int n) const { return offset_[n] + rank(b, n); }

  // Arrangements of n stones in c cells (at most the memo's levels: far below 2^63).
  static std::uint64_t arrangements(int c, int n) { return arrangement_count(c, n).value(); }

  // Lexicographic rank of b's pits (own 1..m, then the opponent's 1..m) among level n.
  std::uint64_t rank(const B& b, int n) const {
    const int side = max_ + 1;
    std::uint64_t r = 0;
    const std::uint64_t* row = below_.data();
    for (int i = 0; i + 1 < cells_; ++i) {
      const int x = i < m_ ? b.pit(i) : b.opp_pit(i - m_);
      r += row[n * side + x];
      n -= x;
      row += std::size_t(side) * side;
    }
    return r;
  }

  int m_, max_, cells_;
  ExactOracle* oracle_ = nullptr;
  int oracle_max_ = -1;
  std::vector<std::uint64_t> offset_;  // first index of each level
  std::vector<std::uint64_t> below_;
  std::size_t length_ = 0;
  HugeBuffer memory_;
  std::uint8_t* table_ = nullptr;  // in memory_: future + 128 per entry; 0: not solved yet
};

}  // namespace kalah::solve_detail
