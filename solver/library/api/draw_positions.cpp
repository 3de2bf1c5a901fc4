// libkalah's draw_positions: the referee's drawing inside a table, as binary positions.
#include <limits>
#include <string>

#include "engine/random_position.hpp"
#include "kalah/kalah.hpp"

namespace kalah::api {

std::vector<BinaryPosition> draw_positions(const DrawOptions& o) {
  if (o.max_stones > 255)
    throw Error(Error::Kind::kInput,
                "at most 255 stones in pits, not " + std::to_string(o.max_stones));
  if (o.count > std::size_t(std::numeric_limits<int>::max()))
    throw Error(Error::Kind::kInput, "at most " + std::to_string(std::numeric_limits<int>::max()) +
                                         " positions at once");
  std::vector<Position> drawn;
  try {
    drawn =
        draw_table_positions({o.pits, int(o.count), o.min_stones, o.max_stones, o.stones, o.seed});
  } catch (const InputError& e) {
    throw Error(Error::Kind::kInput, e.what());
  }
  std::vector<BinaryPosition> out(drawn.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const Position& p = drawn[i];
    BinaryPosition& b = out[i];
    b.pits = p.m;
    for (int k = 0; k < p.m; ++k) {
      b.own[k] = std::uint8_t(p.own_pit(k));
      b.opp[k] = std::uint8_t(p.opp_pit(k));
    }
    b.own_kalah = p.own_kalah();
    b.opp_kalah = p.opp_kalah();
  }
  return out;
}

}  // namespace kalah::api
