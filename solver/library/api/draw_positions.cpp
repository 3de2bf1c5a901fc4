// libkalah's draw_positions: the referee's drawing inside a table, as binary positions.
#include <limits>
#include <string>

#include "engine/random_position.hpp"
#include "kalah/kalah.hpp"
#include "solver/library/api/binary_position.hpp"

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
  std::vector<BinaryPosition> out;
  out.reserve(drawn.size());
  for (const Position& p : drawn) out.push_back(binary_of(p));
  return out;
}

}  // namespace kalah::api
