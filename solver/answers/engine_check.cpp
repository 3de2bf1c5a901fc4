// check_engine and resolve_sample: the engine and the solver measured against the database.
#include "solver/answers/engine_check.hpp"

#include <chrono>
#include <random>

#include "db/index.hpp"
#include "engine/move.hpp"
#include "engine/search.hpp"
#include "engine/stopwatch.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

namespace {

// A uniformly random arrangement among all entries of levels lo..hi of the table.
Position random_entry(const LevelIndex& index, int lo, int hi, std::mt19937_64& rng) {
  std::uint64_t total = 0;
  for (int n = lo; n <= hi; ++n) total += index.size(n);
  std::uint64_t pick = std::uniform_int_distribution<std::uint64_t>(0, total - 1)(rng);
  int n = lo;
  while (pick >= index.size(n)) pick -= index.size(n++);
  return index.position(pick, n);
}

// win > draw > loss
int outcome_rank(int margin) {
  return margin > 0 ? 2 : margin == 0 ? 1 : 0;
}

}  // namespace

EngineCheckReport check_engine(Rules rules, Probe& probe, const EngineCheckOptions& o) {
  EngineCheckReport rep;
  const int top = probe.max_stones();
  const LevelIndex index(probe.table().m, std::max(top, 1));
  std::mt19937_64 rng(o.seed);
  std::vector<Position> positions;
  while (int(positions.size()) < o.positions) {
    const Position p = random_entry(index, 1, top, rng);
    if (!is_over(rules, p)) positions.push_back(p);
  }
  for (bool with_db : {false, true}) {
    for (int depth = 1; depth <= o.max_depth; ++depth) {
      EngineCheckRow row;
      row.depth = depth;
      row.with_db = with_db;
      SearchOptions so;
      so.tt_bytes = o.tt_bytes;
      so.randomize = false;
      so.oracle = with_db ? &probe : nullptr;
      Searcher searcher(rules, so);
      for (const Position& p : positions) {
        const SearchResult r = searcher.search(p, {depth, 0, 0});
        int best = -1000, chosen = -1000;
        for (int pit = 1; pit <= p.m; ++pit) {
          if (p.own_pit(pit - 1) == 0) continue;
          Position c = p;
          const bool again = play_move(rules, c, pit);
          const int child = *probe.margin(c);
          const int v = again ? child : -child;
          best = std::max(best, v);
          if (pit == r.pit) chosen = v;
        }
        ++row.positions;
        if (chosen < best) {
          ++row.margin_losses;
          row.margin_lost += best - chosen;
          if (outcome_rank(chosen) < outcome_rank(best)) ++row.outcome_losses;
          if (with_db && rep.examples.size() < 5)
            rep.examples.push_back(to_string(p) + " depth " + std::to_string(depth) + ": played " +
                                   std::to_string(r.pit) + " worth " + std::to_string(chosen) +
                                   ", best " + std::to_string(best));
        }
        if (o.progress)
          o.progress(std::string(with_db ? "engine + database" : "engine alone") + " depth " +
                         std::to_string(depth),
                     row.positions, positions.size());
      }
      rep.rows.push_back(row);
    }
  }
  return rep;
}

ResolveReport resolve_sample(Rules rules, Probe& probe, int count, int max_stones,
                             std::uint64_t seed,
                             const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  ResolveReport rep;
  const int top = std::min(max_stones, probe.max_stones());
  if (top < 0) return rep;
  const LevelIndex index(probe.table().m, std::max(top, 1));
  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  SolveOptions so;
  so.tt_bytes = 64u << 20;
  so.find_moves = false;
  for (int i = 0; i < count; ++i) {
    const Position p = random_entry(index, 0, top, rng);
    const int stored = *probe.future(p);
    const SolveResult r = solve(rules, p, so);
    rep.nodes += r.nodes;
    ++rep.checked;
    const bool known = r.lower == r.upper;
    if (!known || r.lower != stored) {
      ++rep.mismatches;
      if (rep.examples.size() < 5)
        rep.examples.push_back(to_string(p) + " database " + std::to_string(stored) + " solver " +
                               (known ? std::to_string(r.lower) : std::string("incomplete")));
    }
    if (progress) progress(std::uint64_t(i + 1), std::uint64_t(count));
  }
  rep.seconds = seconds_since(start);
  return rep;
}

}  // namespace kalah
