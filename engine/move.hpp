// Playing a move on a Position: the rule policy's kernel on a WideBoard, then the turn passes.
#pragma once

#include <cassert>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "engine/wide_board.hpp"

namespace kalah {

// Plays own pit `pit` (0-based, non-empty, position not over) and returns true when the same
// player moves again (kalah rules' extra turn); otherwise the position is flipped to the opponent.
template <class R, class Trace = NoTrace>
bool play_move(Position& p, int pit, Trace&& trace = Trace{}) {
  assert(pit >= 0 && pit < p.m && p.own_pit(pit) > 0);
  WideBoard b(p);
  const bool again = R::apply(b, pit, trace);
  assert(b.position().total_stones() == p.total_stones());
  p = b.position();
  if (!again) p.flip();
  return again;
}

// Run-time dispatch for callers outside hot loops. Throws InputError for an illegal move.
bool play_move(Rules r, Position& p, int pit_1based);

}  // namespace kalah
