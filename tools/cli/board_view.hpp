// Text drawing of a board for the terminal, from South's point of view.
#pragma once

#include <string>

#include "engine/position.hpp"

namespace kalah::cli {

// The board as in the seed's figure: N's pits along the top numbered m..1 from left to right, S's
// pits along the bottom numbered 1..m, N's kalah at the left, S's kalah at the right (sowing runs
// counter-clockwise). Several lines, each ending in '\n'.
std::string draw_board(const Position& p);

}  // namespace kalah::cli
