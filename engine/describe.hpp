// Move narration for people: what a move did (relays, captures, extra turn) in one line of words.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah {

// What happened inside one move. Pit numbers are 1-based, each on its owner's side.
struct MoveStory {
  Side mover = Side::kSouth;
  int pit = 0;                                // the pit played
  std::vector<int> relays;                    // wetherell: own pits sown again, in order
  std::vector<std::pair<int, int>> captures;  // wetherell: (opponent's pit, stones), in order
  int opposite_pit = 0;     // kalah rules: own pit of the capturing last stone, 0 if none
  int opposite_stones = 0;  // kalah rules: stones captured, the last one included
  bool extra_turn = false;  // kalah rules: the last stone fell into the mover's kalah

  int captured() const;  // stones that went to the kalah by capture
};

// Plays pit `pit_1based` in p like play_move(Rules, Position&, int) (throws InputError for an
// illegal move) and returns what happened.
MoveStory play_and_describe(Rules rules, Position& p, int pit_1based);

// One line, e.g. "S plays 6: relay from pit 3, captures 3 from N4 and 2 from N3" or
// "N plays 2: captures 5 (pit 2 and S's opposite pit 5)" or "S plays 3: extra turn".
std::string describe(const MoveStory& story, int m);

}  // namespace kalah
