// The checkpoint of `kalah solve`: read, checked against the command, and written as it runs.
#include "solver/session/checkpoint_writer.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "engine/stopwatch.hpp"

namespace kalah {

namespace {

std::string mib_text(std::uint64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

}  // namespace

std::filesystem::path check_file_writable(const std::string& what, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  const std::string where = "cannot write " + what + " " + path + ": ";
  std::error_code ec;
  const fs::file_status dir_status = fs::status(dir, ec);
  if (!fs::exists(dir_status))
    throw std::runtime_error(where + "directory " + dir.string() + " does not exist");
  if (!fs::is_directory(dir_status))
    throw std::runtime_error(where + dir.string() + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error(where + "directory " + dir.string() + ": " + std::strerror(errno));
  if (fs::is_directory(fs::status(path, ec))) throw std::runtime_error(where + "it is a directory");
  return dir;
}

void check_checkpoint_writable(const std::string& path, std::size_t tt_bytes) {
  namespace fs = std::filesystem;
  const fs::path dir = check_file_writable("checkpoint", path);
  const std::string where = "cannot write checkpoint " + path + ": ";
  std::error_code ec;
  struct statvfs disk {};
  if (::statvfs(dir.c_str(), &disk) != 0)
    throw std::runtime_error(where + "directory " + dir.string() + ": " + std::strerror(errno));
  // A leftover temporary file is truncated by the write: its blocks are free for it.
  const std::string tmp = checkpoint_temporary(path);
  std::error_code size_ec;
  const std::uintmax_t size = fs::is_regular_file(tmp, ec) ? fs::file_size(tmp, size_ec) : 0;
  const std::uint64_t free =
      std::uint64_t(disk.f_bavail) * disk.f_frsize + (size_ec ? 0 : std::uint64_t(size));
  const std::uint64_t need = checkpoint_bytes(tt_bytes);
  if (free < need)
    throw std::runtime_error(where + "disk full for it (" + mib_text(free) +
                             " free, a write needs " + mib_text(need) +
                             (tt_bytes > 0 ? ": a temporary copy beside it, holding the " +
                                                 mib_text(tt_bytes) + " transposition table)"
                                           : ")"));
}

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

CheckpointWriter::CheckpointWriter(std::string path, SolveCheckpoint base, const SolveTT* tt,
                                   double every)
    : path_(std::move(path)),
      base_(std::move(base)),
      tt_(tt),
      every_(every),
      start_(std::chrono::steady_clock::now()) {
  latest_ = base_.proven;
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
      save_checkpoint(path_, c, tt_);
      lock.lock();
    } catch (const std::exception& e) {
      std::cerr << "kalah solve: warning: " << e.what() << "\n";
      lock.lock();
    }
    next = std::chrono::steady_clock::now() + period;
  }
}

const SolveCheckpoint& CheckpointWriter::finish(const SolveResult& r) {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    latest_ = r;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  final_ = snapshot(seconds_since(start_), r.nodes);
  final_.proven = r;
  return final_;
}

bool CheckpointWriter::write_final() {
  try {
    save_checkpoint(path_, final_, tt_);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "kalah solve: warning: " << e.what() << "\n";
    return false;
  }
}

}  // namespace kalah
