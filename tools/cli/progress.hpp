// Progress on stderr for long work: a live bar on a terminal, plain lines otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace kalah::cli {

// Reports units done of a known total inside named steps, with rate and ETA; any thread may call
// it. On a terminal it
// redraws one line at most 5 times a second; otherwise it prints a line at most every 10 s and
// one when a step ends. Silent when disabled.
class Progress {
 public:
  explicit Progress(bool enabled);
  ~Progress();

  // Work of the whole job, so the ETA covers the remaining steps too.
  void set_job_total(std::uint64_t total) { job_total_ = total; }
  void update(const std::string& step, std::uint64_t done, std::uint64_t total);
  // Ends the current step with a summary line (always printed when enabled).
  void step_done(const std::string& summary);
  void note(const std::string& line);
  // A line on stderr, also when disabled (a trace the user asked for), below any open line.
  void line(const std::string& text);
  // A status line that replaces the previous one: redrawn in place on a terminal (cut to its
  // width), a line of its own otherwise. The caller paces it.
  void status(const std::string& line);

  // A callback that shows each line it gets by status(); empty when disabled, so that callers
  // build no lines.
  std::function<void(const std::string& line)> status_sink() {
    if (!enabled_) return {};
    return [this](const std::string& line) { status(line); };
  }

  // Removes the line a terminal still shows (a bar or a status), before other output.
  void clear_line();

 private:
  void clear_open_line();  // clear_line() with mutex_ held

  std::mutex mutex_;
  bool enabled_;
  bool tty_;
  bool line_open_ = false;
  std::uint64_t job_total_ = 0;
  std::uint64_t job_done_before_step_ = 0;
  std::uint64_t step_done_ = 0;
  std::chrono::steady_clock::time_point job_start_, step_start_, last_print_;
  std::string step_;
};

std::string with_commas(std::uint64_t v);
// v with its sign: "+8", "0", "-2".
std::string signed_value(int v);
// "0..4, 6, 8..10": levels (increasing) as runs of consecutive ones.
std::string level_runs(const std::vector<int>& levels);

}  // namespace kalah::cli
