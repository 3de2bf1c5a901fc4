// What every kind of `kalah solve` run shares: the database and the TT's size, the checkpoint to
// resume, the stop signals, the answer printed with the final checkpoint, the certificate.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "checkpoint.hpp"
#include "checkpoint_writer.hpp"
#include "db_open.hpp"
#include "progress.hpp"
#include "solve.hpp"
#include "solve_args.hpp"
#include "solve_report.hpp"
#include "solve_tt.hpp"

namespace kalah::cli {

// The TT of a solve of q: --tt-mb, or with 0 the size auto_tt_bytes gives q. The levels above the
// table skip the TT as SolveOptions::untabled_above_db decides.
std::size_t tt_bytes_for(const SolveArgs& a, const Position& q, const Probe* probe);

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

// The checkpoint a run of `processes` processes starts from: `from` when it resumes one, else a
// new one in which nothing is proven yet.
SolveCheckpoint checkpoint_base(const SolveArgs& a, const std::optional<SolveCheckpoint>& from,
                                std::size_t tt_bytes, int processes);

// Set by SIGINT or SIGTERM once stop_on_signals() has run: the solve stops as at its deadline
// (SolveOptions::cancel). stop_signal: the signal, 0 before one.
extern std::atomic<bool> stop_requested;
extern std::atomic<int> stop_signal;

// SIGINT and SIGTERM stop the solve once; a second one ends the process as usual.
void stop_on_signals();

// The solve's table and resumed bounds under --checkpoint: the checkpoint's when FILE exists.
struct Resumed {
  std::optional<SolveCheckpoint> from;
  std::unique_ptr<SolveTable> table;
};

// The checkpoint's table, and its bounds when FILE exists. Before the table is allocated, FILE's
// directory is checked to have room for a write (check_checkpoint_writable).
Resumed resume_checkpoint(const SolveArgs& a, std::size_t tt_bytes);

// The exit status of a solve whose answer was printed but whose final checkpoint or certificate
// could not be written.
inline constexpr int kOutputNotWritten = 3;

// Prints the answer r, then writes the final checkpoint when there is one: the exit status (0, or
// kOutputNotWritten).
int print_answer(const SolveArgs& a, const SolveResult& r, const DbUse& use,
                 CheckpointWriter* writer, bool resumed);

// Writes the certificate to `path` (through a temporary file renamed over it); false, with a
// warning on stderr, when it cannot.
bool write_certificate(const std::string& path, const std::string& text);

}  // namespace kalah::cli
