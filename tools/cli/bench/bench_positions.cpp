// Random positions beyond a table for the bench workloads that search (serve, query).
#include <cstdio>
#include <random>
#include <set>

#include "tools/cli/bench/bench.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {

std::vector<Position> random_positions(Rules rules, int m, int lo, int hi, int count) {
  std::mt19937_64 rng(20261125);
  std::vector<Position> out;
  std::set<std::string> seen;
  for (int tries = 0; int(out.size()) < count && tries < 100 * count; ++tries) {
    Position p;
    p.m = m;
    const int n = lo + int(rng() % std::uint64_t(hi - lo + 1));
    for (int s = 0; s < n; ++s) p.cell[rng() % 2 ? rng() % m : m + 1 + rng() % m]++;
    if (game_finished(rules, p)) continue;
    if (seen.insert(to_string(p)).second) out.push_back(p);
  }
  return out;
}

std::pair<int, int> parse_beyond(const char* name, const std::string& text) {
  int lo = -1, hi = -1;
  char dash = 0, extra = 0;
  const int got = std::sscanf(text.c_str(), "%d%c%d%c", &lo, &dash, &hi, &extra);
  if (got == 1) hi = lo;
  if (!((got == 1 || (got == 3 && dash == '-')) && 0 <= lo && lo <= hi && hi <= 64))
    throw InputError(std::string("--") + name +
                     " must be N or LO-HI with 0 <= LO <= HI <= 64, not '" + text + "'");
  return {lo, hi};
}

}  // namespace kalah::cli
