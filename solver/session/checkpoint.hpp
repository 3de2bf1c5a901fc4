// A solve's checkpoint: what a stopped solve proved, in a file from which a later run resumes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

// A checkpoint file that cannot be read: missing pieces, a wrong checksum, another format.
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What the runs of one solve proved so far. `proven` holds the root's bounds and each move's
// (SolveOptions::resume), and everything else once the solve completed. With has_tt, the file
// also holds the solve's TT of tt_bytes whole: the bounds of the positions below
// the root (a TT under this rule set and board size, SolveOptions::tt).
struct SolveCheckpoint {
  Rules rules = Rules::kWetherell;
  Position position;
  std::size_t tt_bytes = 0;
  bool has_tt = false;
  SolveResult proven;
  int runs = 0;             // runs that wrote this checkpoint
  std::uint64_t nodes = 0;  // nodes of those runs, as far as each had reported them
  double seconds = 0;       // their time
  int processes = 1;        // processes of the run that wrote it (a distributed solve: > 1)
};

// The checkpoint of a solve of p under `rules` before anything is proven: the margin within p's
// kalah difference -+ its stones in pits, no move bounded, no run, no TT.
SolveCheckpoint new_checkpoint(Rules rules, const Position& p, std::size_t tt_bytes);

// The temporary file a write of the checkpoint at `path` goes through: path + ".tmp".
std::string checkpoint_temporary(const std::string& path);

// The most bytes a checkpoint takes on disk with a TT of tt_bytes (0: none): the TT and a
// header of at most 64 KiB.
std::uint64_t checkpoint_bytes(std::size_t tt_bytes);

// Writes c to path, with `tt` (of c.tt_bytes; null: none) whole, or nothing at all: into
// checkpoint_temporary(path), flushed to disk, then renamed over path, so a run killed while
// saving leaves the previous checkpoint. Other threads may go on storing into the TT meanwhile.
// Throws std::runtime_error naming the path and the failure (a full disk, say); the file at path
// is then as it was, and a temporary file this call created is removed.
void save_checkpoint(const std::string& path, SolveCheckpoint c, const SolveTT* tt);

// Reads a checkpoint's header (everything but the TT). Throws CheckpointError naming what is
// wrong, a file whose size does not match its header included.
SolveCheckpoint load_checkpoint(const std::string& path);

// Reads the TT of a checkpoint with has_tt into `tt`, of its tt_bytes. Throws
// CheckpointError when it cannot be read or its checksum differs.
void load_checkpoint_tt(const std::string& path, SolveTT& tt);

}  // namespace kalah
