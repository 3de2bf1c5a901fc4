// `kalah solve --book`: the position and its first plies solved into the database's book.
#pragma once

#include "tools/cli/progress.hpp"
#include "tools/cli/solve_args.hpp"

namespace kalah::cli {

// The position and every position within --book-plies of it solved into the database's book,
// which must exist already and hold the table; the report printed. 0, or 1 when some position was
// not solved in time (not stored). Throws DbError when the database is missing.
int write_book(const SolveArgs& a, Progress& progress);

}  // namespace kalah::cli
