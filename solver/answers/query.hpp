// Exact value of a position and of each of its moves, from the database or, beyond it, the solver.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

enum class Outcome { kWin, kDraw, kLoss };
const char* outcome_name(Outcome o);  // "win", "draw", "loss"
inline Outcome outcome_of(int margin) {
  return margin > 0 ? Outcome::kWin : margin < 0 ? Outcome::kLoss : Outcome::kDraw;
}

// The outcome that bounds lower <= margin <= upper decide, if they decide one.
inline std::optional<Outcome> decided_outcome(int lower, int upper) {
  if (lower > 0) return Outcome::kWin;
  if (upper < 0) return Outcome::kLoss;
  if (lower == 0 && upper == 0) return Outcome::kDraw;
  return std::nullopt;
}

// A margin for the side to move that is either exact or only bounded: lower <= margin <= upper.
struct MarginBound {
  int lower = 0, upper = 0;
  bool exact() const { return lower == upper; }
};

struct MoveAnswer {
  int pit;            // 1-based
  MarginBound value;  // for the side to move in the queried position
  bool again;         // the mover moves again after it (kalah rules' extra turn)
  bool best = false;  // exact and equal to the position's margin
};

struct QueryAnswer {
  MarginBound value;
  bool over = false;              // the game is over: the value is the final margin, no moves
  bool used_solver = false;       // some value came from search rather than the oracle alone
  bool timed_out = false;         // the search stopped early: some values are only bounds
  std::vector<MoveAnswer> moves;  // legal moves, ascending pit
  double seconds = 0;             // of search
  std::uint64_t nodes = 0;        // searched
};

// How query_position searches. The public API's kalah::api::QueryOptions (kalah/kalah.hpp) is
// mapped onto it by Database::query (solver/library/api/database.cpp), which adds the kept TT.
struct QuerySearchOptions {
  double max_seconds = 0;  // of search in all; 0: unlimited
  int threads = 1;         // search threads (SolveOptions::threads)
  // The best-first top's plies (SolveOptions::best_first_plies); -1: the analysis's own
  // (kAnalysisBestFirstPlies in the tests one thread runs by itself, depth-first in a test all
  // threads search together).
  int best_first_plies = -1;
  // When set, called once a search is needed: the TT kept between queries
  // (SolveOptions::tt). Unset: one sized to the position (auto_tt_bytes) is allocated for the
  // query.
  std::function<SolveTT*()> tt;
  // Gets the search's status line about once a second (SolveOptions::progress).
  std::function<void(const std::string& line)> progress;
  // The search stops (bounds answered) once *cancel is true.
  const std::atomic<bool>* cancel = nullptr;
  // Gets the answer so far each time the search proves more of it: once the value and the best
  // moves are exact, then each time another move's value is. One call at a time, from the
  // search's threads; not called for answers that need no search.
  std::function<void(const QueryAnswer& so_far)> on_proven;
};

// p's answer when no search is needed: the game is over, or the oracle values every move. nullopt
// when query_position would search.
std::optional<QueryAnswer> answer_without_search(Rules rules, const Position& p,
                                                 ExactOracle* oracle);

// Values p and its moves. When the oracle answers every move (or the game is over) no search is
// made. Otherwise one analysis (SolveOptions::every_move): the position's value and best moves
// first, as `kalah solve` proves them, then every other move's exact value, the oracle at the
// leaves. Never reports a bound as exact: what the time did not settle is answered as the bounds
// proven so far.
QueryAnswer query_position(Rules rules, const Position& p, ExactOracle* oracle,
                           const QuerySearchOptions& options = {});

}  // namespace kalah
