// Checked move application with run-time rule dispatch, for tools and tests.
#include "engine/move.hpp"

namespace kalah {

bool play_move(Rules r, Position& p, int pit) {
  if (is_over(r, p)) throw InputError("the game is over in this position: no move is legal");
  if (pit < 1 || pit > p.m)
    throw InputError("pit " + std::to_string(pit) + " is outside 1.." + std::to_string(p.m));
  if (p.own_pit(pit - 1) == 0)
    throw InputError(std::string("pit ") + std::to_string(pit) + " of " + side_letter(p.mover) +
                     " is empty");
  return with_rules(r, [&](auto rules) { return play_move<decltype(rules)>(p, pit - 1); });
}

}  // namespace kalah
