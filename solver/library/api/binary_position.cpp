// libkalah's BinaryPosition as the engine's Position and back, and its notation.
#include "solver/library/api/binary_position.hpp"

namespace kalah::api {

Position position_of(const BinaryPosition& b) {
  Position p;
  p.m = b.pits;
  for (int i = 0; i < b.pits; ++i) {
    p.own_pit(i) = b.own[i];
    p.opp_pit(i) = b.opp[i];
  }
  p.own_kalah() = Stones(b.own_kalah);
  p.opp_kalah() = Stones(b.opp_kalah);
  return p;
}

BinaryPosition binary_of(const Position& p) {
  BinaryPosition b;
  b.pits = p.m;
  for (int i = 0; i < p.m; ++i) {
    b.own[i] = std::uint8_t(p.own_pit(i));
    b.opp[i] = std::uint8_t(p.opp_pit(i));
  }
  b.own_kalah = p.own_kalah();
  b.opp_kalah = p.opp_kalah();
  return b;
}

std::string notation(const BinaryPosition& b) {
  return kalah::to_string(position_of(b));
}

}  // namespace kalah::api
