// Play-time search: iterative-deepening alpha-beta with TT, the seed's ordering, exact-value
// oracle.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"

namespace kalah {

// When to stop deepening. The search always finishes depth 1; a budget that runs out during a
// deeper iteration returns the last completed one.
struct SearchLimits {
  int depth = 8;            // plies; every move (an extra turn too) is one ply
  std::uint64_t nodes = 0;  // 0: no node budget
  double seconds = 0;       // 0: no time budget
  // When set, deepening stops once *cancel is true, as when a budget runs out (depth 1 is still
  // finished). Another thread may set it during the search.
  const std::atomic<bool>* cancel = nullptr;
};

struct SearchOptions {
  std::size_t tt_bytes = 16u << 20;
  ExactOracle* oracle = nullptr;  // exact values inside its coverage replace the static evaluation
  bool randomize = true;          // pick at random among root moves of exactly equal value
  std::uint64_t seed = 0;         // random choice seed; equal seeds give equal games
};

struct RootMoveValue {
  int pit;    // 1-based
  int value;  // exact value when > best - 1; otherwise an upper bound (the move is worse)
  bool upper_bound;
};

struct SearchResult {
  int pit = 0;                 // chosen move, 1-based; 0 when the game is over
  int value = 0;               // minimax value for the side to move at `depth`
  bool exact = false;          // value is the exact game margin (no heuristic leaf was involved)
  int depth = 0;               // last completed iteration
  std::vector<int> best_pits;  // every root move of value `value`, ascending
  std::vector<RootMoveValue> root;  // root moves of the last completed iteration, search order
  std::vector<int> pv;              // principal variation from the TT, 1-based pits
  std::uint64_t nodes = 0;
  std::uint64_t oracle_hits = 0;
  double seconds = 0;
  bool budget_ran_out = false;  // a node or time budget stopped the deepening
};

// A searcher for one rule set; keeps its transposition table between calls (clear() to forget).
class Searcher {
 public:
  Searcher(Rules rules, const SearchOptions& options);
  // A searcher for the rule policy R, registered or not; search_impl.hpp defines it.
  template <class R>
  static Searcher for_rules(const SearchOptions& options);
  ~Searcher();
  Searcher(Searcher&&) noexcept;
  Searcher& operator=(Searcher&&) noexcept;

  SearchResult search(const Position& p, const SearchLimits& limits);
  void clear();

  struct Impl;

 private:
  explicit Searcher(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace kalah
