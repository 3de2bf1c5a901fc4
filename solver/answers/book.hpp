// The solved-position book: exact values of an opening's first plies, stored beside the levels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/probe.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

struct BookReport {
  int positions = 0;  // distinct positions within the plies (game-over ones included)
  int stored = 0;     // entries written (positions above the levels whose game is not over)
  int unsolved = 0;   // positions whose solve ran out of time: not stored
  int reused = 0;     // stored entries taken from the keep file, solved by an earlier run
  std::uint64_t nodes = 0;
  double seconds = 0;
};

// Solves `root` and every position reachable from it within `plies` moves (an extra turn is a
// ply) that lies above the probe's levels, with the probe at the solver's leaves, and writes their
// exact future margins into store's book for the probe's table in one transaction. Each solve
// takes base's options (threads, memo, first guess, time, progress sink; the oracle and
// find_moves are set here); its TT is tt_bytes(position) when that is given, else base.tt_bytes.
// A solve that runs out of its per-position time (base.max_seconds) is skipped, never stored.
// `progress` gets (done, total) before each position, and (total, total) before the book's
// transaction.
// keep_path (book_keep_path; "": none): the BookKeep file that holds each entry as soon as it is
// solved, until the transaction has committed, then is removed. The entries it already holds
// (an earlier run of the same rules, root and plies that was killed or failed to store) are taken
// without solving (BookReport::reused). When the transaction fails, the DbError says so, how many
// solved positions the file keeps and that running the same command again stores them.
BookReport build_book(Rules rules, Store& store, Probe& probe, const Position& root, int plies,
                      const SolveOptions& base,
                      const std::function<void(int done, int total)>& progress = {},
                      const std::function<std::size_t(const Position&)>& tt_bytes = {},
                      const std::string& keep_path = {});

struct BookCheck {
  std::uint64_t entries = 0, checked = 0, wrong = 0, unchecked = 0;
  std::vector<std::string> examples;
};

// Checks every book entry of the probe's table: the best over its moves of stones won plus or minus
// the successor's value, successors taken from the levels or the book, else solved (max_seconds
// each; a successor that runs out of time leaves the entry unchecked).
BookCheck verify_book(Rules rules, const Store& store, Probe& probe, double max_seconds);

}  // namespace kalah
