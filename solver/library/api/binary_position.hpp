// BinaryPosition and the engine's Position, one into the other: the one place the library maps
// its binary form onto the board.
#pragma once

#include "engine/position.hpp"
#include "kalah/kalah.hpp"

namespace kalah::api {

// b as a Position of b.pits pits a side, the side to move as South (kalahs taken modulo 2^16).
Position position_of(const BinaryPosition& b);

// p's pits and kalahs seen from its side to move; p's pits hold at most 255 stones each.
BinaryPosition binary_of(const Position& p);

}  // namespace kalah::api
