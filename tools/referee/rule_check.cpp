// The verify mode's check of a bot's rules: the board after a move and the repeat flag.
#include "tools/referee/rule_check.hpp"

#include "engine/move.hpp"
#include "tools/kgp/kgp_protocol.hpp"

namespace kalah::referee {
namespace {

bool same_board(const Position& a, const Position& b) {
  if (a.m != b.m) return false;
  for (Side s : {Side::kSouth, Side::kNorth}) {
    if (a.side_kalah(s) != b.side_kalah(s)) return false;
    for (int i = 0; i < a.m; ++i)
      if (a.side_pit(s, i) != b.side_pit(s, i)) return false;
  }
  return true;
}

// Each side's pits moved into its own kalah.
Position swept(Position p) {
  for (int i = 0; i < p.m; ++i) {
    p.own_kalah() += p.own_pit(i);
    p.opp_kalah() += p.opp_pit(i);
    p.own_pit(i) = p.opp_pit(i) = 0;
  }
  return p;
}

}  // namespace

RuleCheck check_solution(const Position& p, int pit, const Position& board, bool repeat) {
  Position after = p;
  RuleCheck c;
  const bool again = play_move(Rules::kKalah, after, pit);
  const bool ends = is_over(Rules::kKalah, after) || is_decided(after);
  if (!same_board(board, after) && !(ends && same_board(board, swept(after)))) {
    c.why = "the board after pit " + std::to_string(pit) + " is " + kgp::format_board(after) +
            ", not " + kgp::format_board(board);
    if (ends) c.why += " (or " + kgp::format_board(swept(after)) + " after the final sweep)";
    return c;
  }
  if (!ends && repeat != again) {
    c.why = std::string("pit ") + std::to_string(pit) +
            (again ? " gives the mover another move (repeat 1)" : " passes the turn (repeat 0)");
    return c;
  }
  c.ok = true;
  return c;
}

}  // namespace kalah::referee
