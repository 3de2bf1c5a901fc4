// `kalah solve --checkpoint`: the checkpoint read before a solve and written while it runs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "solver/exhaustive/solve.hpp"
#include "solver/session/checkpoint.hpp"

namespace kalah {

// The checkpoint at `path` when it exists, checked to be of this position under these rules;
// nullopt when the file does not exist. Throws InputError when it is of another solve,
// CheckpointError when it cannot be read.
std::optional<SolveCheckpoint> checkpoint_to_resume(const std::string& path, Rules rules,
                                                    const Position& p);

// Throws std::runtime_error "cannot write WHAT PATH: ..." unless PATH's directory exists and is
// writable and PATH is not a directory; returns that directory.
std::filesystem::path check_file_writable(const std::string& what, const std::string& path);

// Throws std::runtime_error naming `path` and the problem unless a checkpoint with a TT of
// tt_bytes (0: none) can be written there: its directory exists and is writable, `path` is not
// a directory, and the disk has room for the temporary copy a write makes beside it
// (checkpoint_bytes).
void check_checkpoint_writable(const std::string& path, std::size_t tt_bytes);

// Writes the checkpoint of one run, the TT with it: after every test at the root that narrows
// a bound (proven()), at the latest every `every` seconds, and at the end (finish(), then
// write_final()). Writing happens on a thread of its own until finish(); a failed write is
// reported on stderr and the previous checkpoint stays.
class CheckpointWriter {
 public:
  // base: what earlier runs proved and spent (totals; runs counts them), or a new checkpoint's
  // identity. tt: the solve's TT, which each write takes whole (may be null: none).
  CheckpointWriter(std::string path, SolveCheckpoint base, const SolveTT* tt, double every);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // What the solve has proven so far (SolveOptions::on_proven): written soon.
  void proven(const SolveResult& so_far);
  // Stops the writes on the writer's thread and returns the checkpoint of the run's result r, its
  // nodes and time added to the totals, for write_final() to write.
  const SolveCheckpoint& finish(const SolveResult& r);
  // Writes what finish() returned. False when the write fails: a one-line warning on stderr then
  // names the file and the reason, and the previous checkpoint stays.
  bool write_final();

 private:
  void run();
  SolveCheckpoint snapshot(double seconds, std::uint64_t nodes);

  std::string path_;
  SolveCheckpoint base_;
  const SolveTT* tt_;
  double every_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  SolveResult latest_;
  SolveCheckpoint final_;
  bool dirty_ = false, done_ = false;
  std::thread thread_;
};

}  // namespace kalah
