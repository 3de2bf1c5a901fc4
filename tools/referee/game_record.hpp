// Games already played, as `kalah grade` reads them: a start and its moves, or its positions.
#pragma once

#include <istream>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah::referee {

struct GameRecord {
  int line = 0;                     // where the game starts in the input, 1-based
  std::vector<Position> positions;  // before each move
  std::vector<int> pits;            // each move, 1-based
};

// Reads games under `rules`, in either of two forms (docs/REFEREE.md):
//  - one a line: a start then its moves, `POSITION PIT PIT ...` with POSITION in our notation
//    (its side letter included) or `MxK` (m pits of k stones, South first);
//  - a position a line (our notation, nothing after it): consecutive positions of one game, each
//    reached from the one before by one move, which is found; a blank line ends the game.
// Blank lines and lines starting with '#' are skipped. Throws InputError naming the line of a
// malformed position or pit, an illegal move, a move after the game's end, or two consecutive
// positions no move joins.
std::vector<GameRecord> read_games(std::istream& in, Rules rules);

}  // namespace kalah::referee
