// The checkpoint of `kalah solve`: read, checked against the command, and written as it runs.
#include "solve_checkpoint.hpp"

#include <filesystem>
#include <iostream>

#include "stopwatch.hpp"

namespace kalah::cli {

std::optional<SolveCheckpoint> checkpoint_to_resume(const std::string& path, Rules rules,
                                                    const Position& p) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  SolveCheckpoint c = load_checkpoint(path);
  if (c.rules != rules || !(c.position == p))
    throw InputError("checkpoint " + path + " is of " + to_string(c.position) + " under " +
                     std::string(rules_name(c.rules)) + ", not of this solve (" + to_string(p) +
                     " under " + std::string(rules_name(rules)) + ")");
  return c;
}

CheckpointWriter::CheckpointWriter(std::string path, SolveCheckpoint base, const SolveTable* table,
                                   double every)
    : path_(std::move(path)),
      base_(std::move(base)),
      table_(table),
      every_(every),
      start_(std::chrono::steady_clock::now()) {
  latest_ = base_.proven;
  last_ = base_;
  thread_ = std::thread([this] { run(); });
}

CheckpointWriter::~CheckpointWriter() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CheckpointWriter::proven(const SolveResult& so_far) {
  {
    std::lock_guard lock(mutex_);
    latest_ = so_far;
    dirty_ = true;
  }
  wake_.notify_all();
}

SolveCheckpoint CheckpointWriter::snapshot(double seconds, std::uint64_t nodes) {
  SolveCheckpoint c = base_;
  {
    std::lock_guard lock(mutex_);
    c.proven = latest_;
    dirty_ = false;
  }
  c.runs = base_.runs + 1;
  c.seconds = base_.seconds + seconds;
  c.nodes = base_.nodes + nodes;
  return c;
}

void CheckpointWriter::run() {
  const auto period = std::chrono::duration<double>(every_);
  auto next = std::chrono::steady_clock::now() + period;
  std::unique_lock lock(mutex_);
  while (!done_) {
    wake_.wait_until(lock, std::chrono::time_point_cast<std::chrono::steady_clock::duration>(next),
                     [this] { return done_ || dirty_; });
    if (done_) break;
    lock.unlock();
    try {
      // Nodes are counted at the end of a run; a run's writes before it keep the earlier total.
      SolveCheckpoint c = snapshot(seconds_since(start_), 0);
      save_checkpoint(path_, c, table_);
      lock.lock();
      last_ = std::move(c);
    } catch (const std::exception& e) {
      std::cerr << "kalah solve: warning: " << e.what() << "\n";
      lock.lock();
    }
    next = std::chrono::steady_clock::now() + period;
  }
}

void CheckpointWriter::finish(const SolveResult& r) {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    latest_ = r;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  SolveCheckpoint c = snapshot(seconds_since(start_), r.nodes);
  c.proven = r;
  save_checkpoint(path_, c, table_);
  last_ = std::move(c);
}

}  // namespace kalah::cli
