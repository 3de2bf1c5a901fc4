// `kalah solve`'s printed answers, text and JSON: a solve's, the claims', the book's, the
// checkpoint's line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/probe.hpp"
#include "solver/answers/book.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/session/checkpoint.hpp"
#include "tools/cli/solve_args.hpp"
#include "tools/cli/solve_claims.hpp"

namespace kalah::cli {

// The database as the solve used it.
struct DbUse {
  int stones;      // coverage: positions with up to that many stones in pits; -1 none
  bool in_memory;  // decoded into memory before the search
  double open_s;   // seconds to open (and load) it, outside the search time
};
DbUse db_use(const Probe& probe, double open_s);

// The TT sizes the book's solves took, as "TT 16 MiB" or "TT 16-64 MiB".
struct TtRange {
  std::size_t min = 0, max = 0;
  void add(std::size_t bytes) {
    min = min == 0 ? bytes : std::min(min, bytes);
    max = std::max(max, bytes);
  }
  std::string text() const;
};

// SolveResult::top_tree as {nodes, repeated, expanded, repeated_expanded}.
nlohmann::ordered_json best_first_tree_json(const SolveResult& r);

// A solve's answer: one JSON object (with the checkpoint's totals when given, the root's tests
// when given) or the text lines.
void print_json(const Position& p, Rules rules, const SolveResult& r, const DbUse& db,
                const SolveCheckpoint* checkpoint = nullptr,
                const std::vector<RootTest>* tests = nullptr);
void print_text(const Position& p, Rules rules, const SolveResult& r, const DbUse& db);
// One root test as --trace-tests prints it: "the root: margin >= +8? yes: margin >= +8
// (18,022,808 nodes, 10,939,700 expanded)", or "pit 3: ..." for a move's.
std::string test_text(const RootTest& t);
// --book's report of the book written; keep_path: the file its solved entries were kept in.
void print_book_report(const SolveArgs& a, const BookReport& b, const TtRange& tt,
                       const Probe& probe, double open_s, const std::string& keep_path);
// The checkpoint's line (text output only).
void print_checkpoint(const SolveArgs& a, const SolveCheckpoint& c, bool resumed);
// The proven bounds of a solve so far: the margin's, each move's, the best moves once proven.
std::string proven_text(const SolveResult& r);
// The claims' checks; `run`: their nodes and seconds; `all`: every claim asked holds.
void print_claims(const SolveArgs& a, const std::vector<ClaimCheck>& checks, const SolveResult& run,
                  bool all, const DbUse& db);

}  // namespace kalah::cli
