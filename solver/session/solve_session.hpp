// A solve run as a job: its TT's size, the checkpoint it resumes, the stop signals and the exit
// status a signal gives.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <string>

#include "db/probe.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/session/checkpoint.hpp"

namespace kalah {

// What a solve job is asked for, as far as its TT and checkpoint go.
struct SolveJob {
  Rules rules = Rules::kWetherell;
  Position position;
  long long tt_mb = 0;     // the TT in MiB; 0: sized to the position (auto_tt_bytes)
  int tt_skip = -1;        // SolveOptions::tt_skip_above_db
  std::string checkpoint;  // the checkpoint file; empty: none
};

// The TT of a solve of q: tt_mb, or with 0 the size auto_tt_bytes gives q with `probe` at its
// leaves (null: none). The levels above the table skip the TT as `tt_skip` decides.
std::size_t solve_tt_bytes(const SolveJob& job, const Position& q, const Probe* probe);

// The size an automatic TT of `tt_bytes` starts at, growing as it fills (SolveOptions::
// tt_start_bytes): kAutoTtStartBytes, or 0 (the whole table at once) when --tt-mb gave the size
// or the job keeps a checkpoint (which writes the table whole).
std::size_t solve_tt_start_bytes(const SolveJob& job, std::size_t tt_bytes);

// The checkpoint a run of `processes` processes starts from: `from` when it resumes one, else a
// new one in which nothing is proven yet.
SolveCheckpoint checkpoint_base(const SolveJob& job, const std::optional<SolveCheckpoint>& from,
                                std::size_t tt_bytes, int processes);

// A run resumed from job.checkpoint: the checkpoint when the file exists, and the TT's size, the
// checkpoint's. Throws InputError when tt_mb was given and differs from it; before returning,
// checks that the file's directory has room for a write of the table (check_checkpoint_writable).
struct ResumePlan {
  std::optional<SolveCheckpoint> from;
  std::size_t tt_bytes = 0;
};
ResumePlan plan_resume(const SolveJob& job, std::size_t tt_bytes);

// Set by SIGINT or SIGTERM once stop_on_signals() has run: the solve stops as at its deadline
// (SolveOptions::cancel). stop_signal: the signal, 0 before one.
extern std::atomic<bool> stop_requested;
extern std::atomic<int> stop_signal;

// SIGINT and SIGTERM stop the solve once; a second one ends the process as usual.
void stop_on_signals();

// The exit status of a run: 128 + the signal that stopped it, else `otherwise`.
int exit_status_after(int otherwise);

}  // namespace kalah
