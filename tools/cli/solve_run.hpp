// What every kind of `kalah solve` run shares on the command line: its job, the database and the
// options, the TT of a resumed checkpoint, the answer printed with the final checkpoint, the
// certificate.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "solver/exhaustive/solve.hpp"
#include "solver/exhaustive/solve_tt.hpp"
#include "solver/session/checkpoint.hpp"
#include "solver/session/checkpoint_writer.hpp"
#include "solver/session/solve_session.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/progress.hpp"
#include "tools/cli/solve_args.hpp"
#include "tools/cli/solve_report.hpp"

namespace kalah::cli {

// The job the command line asks for (session/solve_session.hpp).
SolveJob solve_job(const SolveArgs& a);

// The options every solve of this command shares (no oracle, no TT size, no progress yet).
SolveOptions shared_solve_options(const SolveArgs& a);

// The database at a solve's leaves (none with --no-db) and the options of the solve with it.
struct SolveSetup {
  OpenedDb db;
  double open_s = 0;  // seconds to open it
  SolveOptions opt;   // shared_solve_options() with the database as oracle and the TT's size
  DbUse use() const { return db.probe ? db_use(*db.probe, open_s) : DbUse{-1, false, open_s}; }
};

// Opens the database for a solve of --position (saying so on `progress` when given).
SolveSetup open_solve(const SolveArgs& a, Progress* progress);

// The solve's TT and resumed bounds under --checkpoint: the checkpoint's when FILE exists.
struct Resumed {
  std::optional<SolveCheckpoint> from;
  std::unique_ptr<SolveTT> tt;
};

// The checkpoint's TT, and its bounds when FILE exists (plan_resume: before the TT is
// allocated, FILE's directory is checked to have room for a write).
Resumed resume_checkpoint(const SolveArgs& a, std::size_t tt_bytes);

// The exit status of a solve whose answer was printed but whose final checkpoint or certificate
// could not be written.
inline constexpr int kOutputNotWritten = 3;

// Prints the answer r, then writes the final checkpoint when there is one: the exit status (0, or
// kOutputNotWritten).
// With `tests`, the JSON lists them (--trace-tests).
int print_answer(const SolveArgs& a, const SolveResult& r, const DbUse& use,
                 CheckpointWriter* writer, bool resumed,
                 const std::vector<RootTest>* tests = nullptr);

// Writes the certificate to `path` whole (write_file_whole); false, with a warning on stderr,
// when it cannot.
bool write_certificate(const std::string& path, const std::string& text);

}  // namespace kalah::cli
