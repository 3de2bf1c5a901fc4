// query_position: per-move exact values through the oracle, the exhaustive solver beyond it.
#include "query.hpp"

#include <algorithm>
#include <chrono>

#include "move.hpp"
#include "solve.hpp"

namespace kalah {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kWin:
      return "win";
    case Outcome::kDraw:
      return "draw";
    case Outcome::kLoss:
      return "loss";
  }
  return "?";
}

namespace {

// The transposition table of one move's solve: 1 MiB for a child at most 8 stones in pits beyond
// the oracle's levels, doubling every 2 stones from 9 (2 MiB) to SolveOptions' 64 MiB from 19 on.
// Small searches fit a small table, and each solve allocates its table whole.
std::size_t query_tt_bytes(const Position& child, const ExactOracle* oracle) {
  const int beyond = child.pit_stones() - (oracle ? std::max(oracle->max_stones(), 0) : 0);
  return std::size_t(1) << (20 + std::clamp((beyond - 7) / 2, 0, 6));
}

}  // namespace

QueryAnswer query_position(Rules rules, const Position& p, ExactOracle* oracle, double max_seconds,
                           int threads,
                           const std::function<void(const std::string& line)>& progress) {
  QueryAnswer a;
  if (is_over(rules, p)) {
    a.over = true;
    a.value = {final_margin(p), final_margin(p)};
    return a;
  }
  const auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    if (max_seconds <= 0) return 0.0;
    const double used =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::max(1e-3, max_seconds - used);
  };
  a.value = {-1 << 20, -1 << 20};
  for (int pit = 1; pit <= p.m; ++pit) {
    if (p.own_pit(pit - 1) == 0) continue;
    Position c = p;
    const bool again = play_move(rules, c, pit);
    MarginBound child;
    if (auto v = oracle ? oracle->margin(c) : std::nullopt) {
      child = {*v, *v};
    } else {
      SolveOptions opt;
      opt.oracle = oracle;
      opt.max_seconds = left();
      opt.find_moves = false;  // only the value is needed
      opt.tt_bytes = query_tt_bytes(c, oracle);
      opt.threads = threads;
      if (progress)
        opt.progress = [&](const std::string& line) {
          progress("move " + std::to_string(pit) + ": " + line);
        };
      const SolveResult r = solve(rules, c, opt);
      a.used_solver = true;
      child = MarginBound{r.lower, r.upper};
      if (r.lower != r.upper) a.timed_out = true;
    }
    const MarginBound mine = again ? child : MarginBound{-child.upper, -child.lower};
    a.moves.push_back({pit, mine, again});
    a.value.lower = std::max(a.value.lower, mine.lower);
    a.value.upper = std::max(a.value.upper, mine.upper);
  }
  for (auto& m : a.moves)
    m.best = a.value.exact() && m.value.exact() && m.value.lower == a.value.lower;
  return a;
}

}  // namespace kalah
