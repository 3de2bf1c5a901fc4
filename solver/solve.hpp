// Exhaustive solver: the exact margin of a position, its best moves and a principal variation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "position.hpp"
#include "rules.hpp"

namespace kalah {

// SolveOptions::untabled_above_db when the table is in memory, under the extra-turn rule sets
// (docs/SOLVER.md, "The database at the leaves").
inline constexpr int kUntabledAboveResident = 4;

struct SolveOptions {
  // Probed at every node with at most oracle->max_stones() stones in pits, and at every node of
  // the first few plies (an opening book beyond the levels may know them); an answer is taken as
  // exact. Must answer for the same rule set and board size as the solved position.
  ExactOracle* oracle = nullptr;
  // Transposition table size; rounded down to a power of two of 64-byte buckets (at least one),
  // allocated whole when the solve starts.
  std::size_t tt_bytes = std::size_t(64) << 20;
  // Boards with at most this many stones in pits are solved once each by plain minimax and kept
  // in a dense table of C(n + 2m - 1, 2m - 1) bytes per level n (filled lazily; at most 126).
  // -1: chosen from the rules and the position's stones in pits, within min(tt_bytes / 4, 64 MiB)
  // (solve_driver.hpp); 0: none.
  int memo_stones = -1;
  double max_seconds = 0;  // 0: unlimited; otherwise the solve stops with complete = false
  // false: stop as soon as the margin is proven (complete, best_moves and pv left empty).
  bool find_moves = true;
  // MTD(f)'s first guess: when the root has at least 20 stones in pits beyond the oracle's
  // levels, the play-time engine (heuristic alpha-beta, the oracle at its leaves) searches this
  // many plies and its value is the guess; otherwise, or with 0, the guess is 0. A guess only
  // orders the tests: the result is exact either way. Engine nodes are not counted in nodes.
  int guess_depth = 16;
  // Threads of the MTD(f) tests and the moves' tests (sharing the TT, solve_search.hpp); the PV
  // uses one. With one thread and no time limit node counts are deterministic; with more they
  // vary run to run.
  int threads = 1;
  // Boards with at most this many stones in pits beyond the oracle's levels skip the TT: their
  // subtrees end in database reads within a few plies, and searching them again costs less than
  // the TT's random reads (docs/SOLVER.md). -1: kUntabledAboveResident when the oracle's table is
  // in memory and the rules give extra turns (kalah, kalah-empty-capture), else 0 (wetherell's
  // relays make those subtrees large). Values are exact either way; node counts differ.
  int untabled_above_db = -1;
  // When set, gets a status line (time, nodes, rate, the proven bounds, what the solve is testing)
  // about once a second.
  std::function<void(const std::string& line)> progress;
};

struct SolveResult {
  // True when margin, best_moves and pv (unless not asked for) are all proven. When false, only
  // lower/upper hold (the time ran out); lower == upper means the margin is known, the moves not.
  bool complete = false;
  int margin = 0;  // RULES.md margin for the side to move; meaningful only when complete
  int lower = 0;   // proven: lower <= margin <= upper (equal when complete)
  int upper = 0;
  std::vector<int> best_moves;  // every 1-based pit that achieves the margin, ascending
  // 1-based pits from the position to the end of the game; after an extra turn (kalah rules) the
  // same side moves again. Starts with one of best_moves; every move in it is optimal.
  std::vector<int> pv;
  std::uint64_t nodes = 0;        // search nodes, verification of best moves and pv included
  std::uint64_t oracle_hits = 0;  // nodes answered by the oracle
  // Nodes whose moves were searched: not answered by the game's end, the bounds, the oracle, the
  // memo or a TT cutoff (the nodes Irving's solver counts; nodes counts every position visited).
  std::uint64_t expanded = 0;
  double seconds = 0;
};

// Solves p under `rules` by MTD(f) null-window searches over future margins (see solve_search.hpp).
// With the same options, one thread and no time limit, node counts are deterministic.
// A position whose game is over has its final margin and no moves.
SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt = {});

}  // namespace kalah
