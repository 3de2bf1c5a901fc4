// A board seen from the side to move, its notation (RULES.md) and the end-of-game rules.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "engine/rules.hpp"

namespace kalah {

constexpr int kMaxPits = 12;            // pits per side
constexpr int kMaxTotalStones = 65535;  // every count, kalahs included, fits a Stones
using Stones = std::uint16_t;

enum class Side : std::uint8_t { kSouth = 0, kNorth = 1 };
constexpr Side other(Side s) {
  return s == Side::kSouth ? Side::kNorth : Side::kSouth;
}
constexpr char side_letter(Side s) {
  return s == Side::kSouth ? 'S' : 'N';
}

// Bad text or an illegal request from a user: what() is a one-line message naming the problem.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Board from the side to move. Cells [0, m) are the mover's pits 1..m, cell m its kalah,
// [m+1, 2m+1) the opponent's pits 1..m, cell 2m+1 the opponent's kalah. Cells in that order are
// also the mover's sowing ring (the opponent's kalah is skipped), and passing the turn swaps the
// two halves of m+1 cells.
struct Position {
  int m = 6;
  Side mover = Side::kSouth;  // who "the side to move" is, for notation and display
  std::array<Stones, 2 * kMaxPits + 2> cell{};

  Stones& own_pit(int i) { return cell[i]; }  // i in [0, m)
  Stones own_pit(int i) const { return cell[i]; }
  Stones& opp_pit(int i) { return cell[m + 1 + i]; }
  Stones opp_pit(int i) const { return cell[m + 1 + i]; }
  Stones& own_kalah() { return cell[m]; }
  Stones own_kalah() const { return cell[m]; }
  Stones& opp_kalah() { return cell[2 * m + 1]; }
  Stones opp_kalah() const { return cell[2 * m + 1]; }

  int own_pit_stones() const {
    int n = 0;
    for (int i = 0; i < m; ++i) n += cell[i];
    return n;
  }
  int opp_pit_stones() const {
    int n = 0;
    for (int i = m + 1; i <= 2 * m; ++i) n += cell[i];
    return n;
  }
  int pit_stones() const { return own_pit_stones() + opp_pit_stones(); }
  int total_stones() const { return pit_stones() + own_kalah() + opp_kalah(); }
  int kalah_difference() const { return int(own_kalah()) - int(opp_kalah()); }

  // Pits of the side South / North (0-based) and their kalahs, whoever is to move.
  Stones side_pit(Side s, int i) const { return s == mover ? own_pit(i) : opp_pit(i); }
  Stones side_kalah(Side s) const { return s == mover ? own_kalah() : opp_kalah(); }

  // Passes the turn: the opponent becomes the side to move.
  void flip() {
    for (int i = 0; i <= m; ++i) std::swap(cell[i], cell[m + 1 + i]);
    mover = other(mover);
  }

  friend bool operator==(const Position& a, const Position& b) {
    return a.m == b.m && a.mover == b.mover && a.cell == b.cell;
  }
};

// The start position: m pits of k stones each side, `first` to move.
Position start_position(int m, int k, Side first = Side::kSouth);

// A board size "MxK" (m pits a side, k stones a pit) as {m, k}; nullopt when text is not of that
// form. Throws InputError naming text unless 1 <= m <= kMaxPits, k >= 1 and the 2mk stones fit.
std::optional<std::pair<int, int>> parse_board_size(std::string_view text);

// The registered rule set named `name` (rules_names()). Throws InputError listing the names.
Rules parse_rules_name(std::string_view name);

// Parses "s1,..,sm,SK/n1,..,nm,NK X". Throws InputError naming the problem.
Position parse_position(std::string_view text);
std::string to_string(const Position& p);

// True when the game has reached its natural end: R::game_ends on whose pits are empty.
template <class R>
bool is_over(const Position& p) {
  return R::game_ends(p.own_pit_stones() == 0, p.opp_pit_stones() == 0);
}
bool is_over(Rules r, const Position& p);

// Final margin (side to move minus opponent) of a position that is over: each side's pit stones
// go to its own kalah (under wetherell the mover has none left).
inline int final_margin(const Position& p) {
  return int(p.own_kalah()) + p.own_pit_stones() - int(p.opp_kalah()) - p.opp_pit_stones();
}

// The margins p can end with, whatever is played: its kalah difference minus and plus its stones in
// pits (each stone can end in either kalah). {lower, upper}.
inline std::pair<int, int> margin_range(const Position& p) {
  return {p.kalah_difference() - p.pit_stones(), p.kalah_difference() + p.pit_stones()};
}

// The shortcut of kDecidedAtHalf rule sets: some kalah holds more than half of all stones, so the
// winner is known (the margin still counts the game played to its natural end).
inline bool is_decided(const Position& p) {
  const int t = p.total_stones();
  return 2 * int(p.own_kalah()) > t || 2 * int(p.opp_kalah()) > t;
}

// Game over for play: the natural end, or (rule sets with kDecidedAtHalf) a kalah holding more
// than half the stones.
bool game_finished(Rules r, const Position& p);

}  // namespace kalah
