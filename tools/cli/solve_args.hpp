// `kalah solve`'s command line, parsed and checked: what the solve, the claims and the book use.
#pragma once

#include <string>
#include <vector>

#include "db/table_load.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/solve_claims.hpp"

namespace kalah::cli {

// What the command line asked for, checked.
struct SolveArgs {
  Rules rules = Rules::kWetherell;
  Position position;
  std::string db_path = kDefaultDbPath;
  bool explicit_db = false;  // --db given
  bool no_db = false;
  bool json = false;
  bool write_book = false;
  int book_plies = 2;
  double max_time = 0;
  long long tt_mb = 0;
  DbLoadOptions db_load;
  TableLoad load = TableLoad::kAuto;
  int memo = -1;
  int threads = 0;
  int guess_depth = SolveOptions{}.guess_depth;
  int tt_skip = -1;
  int best_first = -1;  // --best-first (SolveOptions::best_first_plies)
  long long best_first_budget = 4096;
  bool progress = false;
  std::string checkpoint;  // empty: none
  double checkpoint_every = 600;
  std::string certificate;          // empty: none
  std::string trace_expanded;       // empty: none
  bool trace_tests = false;         // --trace-tests
  std::vector<MarginClaim> claims;  // --at-least, --at-most: empty for a solve
};

}  // namespace kalah::cli
