// query_position: a position's value and every move's, from the oracle or one analysis by the
// solver.
#include "solver/answers/query.hpp"

#include <algorithm>

#include "engine/move.hpp"

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

// The answer when the oracle values every move; nullopt when it misses one.
std::optional<QueryAnswer> from_oracle(Rules rules, const Position& p, ExactOracle* oracle) {
  if (oracle == nullptr) return std::nullopt;
  QueryAnswer a;
  a.value = {-1 << 20, -1 << 20};
  for (int pit = 1; pit <= p.m; ++pit) {
    if (p.own_pit(pit - 1) == 0) continue;
    Position c = p;
    const bool again = play_move(rules, c, pit);
    const std::optional<int> v = oracle->margin(c);
    if (!v) return std::nullopt;
    const int mine = again ? *v : -*v;
    a.moves.push_back({pit, {mine, mine}, again});
    a.value.lower = a.value.upper = std::max(a.value.lower, mine);
  }
  return a;
}

// The answer of a (possibly partial) solve with every_move.
QueryAnswer from_solve(Rules rules, const Position& p, const SolveResult& r) {
  QueryAnswer a;
  a.used_solver = true;
  a.value = {r.lower, r.upper};
  a.timed_out = !r.complete;
  a.seconds = r.seconds;
  a.nodes = r.nodes;
  for (const MoveBound& m : r.moves) {
    Position c = p;
    const bool again = play_move(rules, c, m.pit);
    a.moves.push_back({m.pit, {m.lower, m.upper}, again});
  }
  return a;
}

void mark_best(QueryAnswer& a) {
  for (auto& m : a.moves)
    m.best = a.value.exact() && m.value.exact() && m.value.lower == a.value.lower;
}

}  // namespace

std::optional<QueryAnswer> answer_without_search(Rules rules, const Position& p,
                                                 ExactOracle* oracle) {
  if (is_over(rules, p)) {
    QueryAnswer a;
    a.over = true;
    a.value = {final_margin(p), final_margin(p)};
    return a;
  }
  std::optional<QueryAnswer> a = from_oracle(rules, p, oracle);
  if (a) mark_best(*a);
  return a;
}

QueryAnswer query_position(Rules rules, const Position& p, ExactOracle* oracle,
                           const QuerySearchOptions& options) {
  if (std::optional<QueryAnswer> a = answer_without_search(rules, p, oracle)) return *a;
  SolveOptions so;
  so.oracle = oracle;
  if (options.tt) so.tt = options.tt();
  so.tt_bytes = auto_tt_bytes(rules, p, oracle);  // the TT, or with a kept one the memo's budget
  so.tt_start_bytes = kAutoTtStartBytes;          // a TT of the query's own grows as it fills
  so.max_seconds = options.max_seconds;
  so.threads = options.threads;
  so.every_move = true;
  so.best_first_plies = options.best_first_plies;
  so.find_pv = false;
  so.progress = options.progress;
  so.cancel = options.cancel;
  if (options.on_proven)
    so.on_proven = [&](const SolveResult& r) {
      QueryAnswer a = from_solve(rules, p, r);
      mark_best(a);
      options.on_proven(a);
    };
  QueryAnswer a = from_solve(rules, p, solve(rules, p, so));
  mark_best(a);
  return a;
}

}  // namespace kalah
