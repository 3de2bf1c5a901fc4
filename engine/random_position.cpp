// Positions drawn uniformly inside a table level (stars and bars over the 2m pits).
#include "engine/random_position.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <random>
#include <string>

namespace kalah {
namespace {

std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
}

// n stones over the 2m pits, every arrangement equally likely (stars and bars), South to move.
Position spread(int m, int n, std::mt19937_64& rng) {
  std::vector<int> slots(std::size_t(n + 2 * m - 1));
  std::iota(slots.begin(), slots.end(), 0);
  std::vector<int> bars;
  std::sample(slots.begin(), slots.end(), std::back_inserter(bars), 2 * m - 1, rng);
  bars.push_back(n + 2 * m - 1);
  Position p;
  p.m = m;
  int before = -1;
  for (int pit = 0; pit < 2 * m; ++pit) {
    const int stones = bars[std::size_t(pit)] - before - 1;
    before = bars[std::size_t(pit)];
    (pit < m ? p.own_pit(pit) : p.opp_pit(pit - m)) = Stones(stones);
  }
  return p;
}

void check(const TableDraw& d) {
  if (d.m < 1 || d.m > kMaxPits)
    throw InputError("pits must be in [1, " + std::to_string(kMaxPits) + "], not " +
                     std::to_string(d.m));
  if (!(2 <= d.lo && d.lo <= d.hi))
    throw InputError(
        "stones in pits must be 2 <= min <= max (a side without stones ends the "
        "game), not " +
        std::to_string(d.lo) + ".." + std::to_string(d.hi));
  if (d.count < 0) throw InputError("the count of positions must be >= 0");
  if (d.stones < 0) throw InputError("stones a pit at the start must be >= 0");
  if (d.hi > kMaxTotalStones || 2LL * d.m * d.stones > kMaxTotalStones)
    throw InputError("at most " + std::to_string(kMaxTotalStones) + " stones in all");
}

}  // namespace

std::vector<Position> draw_table_positions(const TableDraw& d) {
  check(d);
  std::mt19937_64 rng(d.seed);
  std::vector<Position> out;
  out.reserve(std::size_t(d.count));
  while (int(out.size()) < d.count) {
    const int n = int(uniform(rng, std::uint64_t(d.lo), std::uint64_t(d.hi)));
    Position p;
    do {  // with n >= 2 stones, some arrangements leave both sides stones
      p = spread(d.m, n, rng);
    } while (p.own_pit_stones() == 0 || p.opp_pit_stones() == 0);
    const int total = std::max(2 * d.m * d.stones, n), rest = total - n;
    const int south = int(uniform(rng, std::uint64_t(std::max(0, rest - total / 2)),
                                  std::uint64_t(std::min(rest, total / 2))));
    p.own_kalah() = Stones(south);
    p.opp_kalah() = Stones(rest - south);
    out.push_back(p);
  }
  return out;
}

}  // namespace kalah
