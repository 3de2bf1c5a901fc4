// The board concept every move kernel is written against, and the trace a move reports to.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace kalah {

// A board seen from the side to move, cells ordered as in Position::cell: the mover's pits
// [0, m), its kalah m, the opponent's pits [m+1, 2m+1), the opponent's kalah 2m+1. Cells [0, 2m]
// are the mover's sowing ring (the opponent's kalah is skipped).
//   m()          pits a side
//   cell(i)      stones in cell i
//   take(i)      empties cell i and returns what it held
//   add(i, s)    puts s more stones into cell i (the cell's type must hold the sum)
//   sow(i)       empties cell i (non-empty, on the ring) and sows its stones one a cell along the
//                ring, whole laps first; returns the cell the last stone fell into
//   flip()       passes the turn: the two halves of m + 1 cells swap places
//   own_empty()  no stone in the mover's pits; opp_empty(): none in the opponent's
//   key()        a hash of the pits (not the kalahs) and m, never 0
// The rule policies (engine/rules/) move any Board; the boards differ only in storage and speed:
// WideBoard (16-bit cells, any board), ByteArrayBoard (one byte a cell in memory, at most 255
// stones), RegisterBoard (one byte a cell in a vector register, at most 7 pits and 255 stones).
template <class B>
concept Board = requires(B& b, const B& cb, int i) {
  { cb.m() } -> std::convertible_to<int>;
  { cb.cell(i) } -> std::convertible_to<int>;
  { b.take(i) } -> std::convertible_to<int>;
  b.add(i, i);
  { b.sow(i) } -> std::same_as<int>;
  b.flip();
  { cb.own_empty() } -> std::same_as<bool>;
  { cb.opp_empty() } -> std::same_as<bool>;
  { cb.key() } -> std::same_as<std::uint64_t>;
};

// take() and add() for a board D that offers cell(i) and set(i, stones).
template <class D>
struct CellEdits {
  int take(int i) {
    D& d = static_cast<D&>(*this);
    const int s = d.cell(i);
    d.set(i, 0);
    return s;
  }
  void add(int i, int stones) {
    D& d = static_cast<D&>(*this);
    d.set(i, d.cell(i) + stones);
  }
};

template <int... Is>
constexpr std::integer_sequence<int, (Is + 1)...> plus_one(std::integer_sequence<int, Is...>) {
  return {};
}
// The board sizes 1..N, for with_pits.
template <int N>
using PitsOneTo = decltype(plus_one(std::make_integer_sequence<int, N>{}));

// Calls f(std::integral_constant<int, M>{}) for the M among Ms that equals m: a board size as a
// compile-time constant. Returns false, calling nothing, when m is not among them.
template <int... Ms, class F>
bool with_pits(int m, F&& f, std::integer_sequence<int, Ms...> = {}) {
  return ((m == Ms && (f(std::integral_constant<int, Ms>{}), true)) || ...);
}

// The end of the game on a board seen from its side to move, by the policy R's game_ends.
template <class R, Board B>
bool is_over(const B& b) {
  return R::game_ends(b.own_empty(), b.opp_empty());
}
// The same for the board after R::apply, before the turn passes; again: the mover moves again.
template <class R, Board B>
bool is_over_after(const B& b, bool again) {
  return again ? R::game_ends(b.own_empty(), b.opp_empty())
               : R::game_ends(b.opp_empty(), b.own_empty());
}

// Receives what happens inside a move, for display. Pits are 0-based from their owner's left.
struct NoTrace {
  void relay(int /*own_pit*/) {}
  void capture(int /*opp_pit*/, int /*stones*/) {}           // one captured opponent pit at a time
  void capture_opposite(int /*own_pit*/, int /*stones*/) {}  // both pits' total, to the kalah
  void extra_turn() {}
};

// 64x64 -> 128-bit multiply folded to 64 bits: the boards' key mixer.
inline std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return std::uint64_t(r) ^ std::uint64_t(r >> 64);
}

// A 64-bit finalizer (murmur3's fmix64), never 0: the byte-array board's key mixer.
inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h + (h == 0);
}

}  // namespace kalah
