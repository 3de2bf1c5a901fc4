// Progress display: terminal bar or periodic plain lines on stderr.
#include "tools/cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace kalah::cli {

namespace {
using Clock = std::chrono::steady_clock;
double secs(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string eta_text(double s) {
  char buf[32];
  if (s < 0 || s > 1e7) return "?";
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
  return buf;
}
}  // namespace

std::string level_runs(const std::vector<int>& levels) {
  std::string out;
  for (std::size_t i = 0; i < levels.size();) {
    std::size_t j = i;
    while (j + 1 < levels.size() && levels[j + 1] == levels[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(levels[i]) +
           (j > i ? ".." + std::to_string(levels[j]) : std::string());
    i = j + 1;
  }
  return out;
}

std::string with_commas(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

Progress::Progress(bool enabled)
    : enabled_(enabled),
      tty_(isatty(STDERR_FILENO)),
      job_start_(Clock::now()),
      step_start_(job_start_),
      last_print_(job_start_) {}

Progress::~Progress() {
  clear_line();
}

void Progress::clear_line() {
  std::lock_guard lock(mutex_);
  clear_open_line();
}

void Progress::clear_open_line() {
  if (line_open_) std::cerr << "\r\033[K" << std::flush;
  line_open_ = false;
}

void Progress::update(const std::string& step, std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  if (step != step_) {
    step_ = step;
    step_start_ = now;
    last_print_ = now;
  }
  step_done_ = done;
  const double since = secs(now - last_print_);
  if (since < (tty_ ? 0.2 : 10.0)) return;
  last_print_ = now;
  const double step_s = secs(now - step_start_);
  const double rate = step_s > 0 ? double(done) / step_s : 0;
  const double pct = total ? 100.0 * double(done) / double(total) : 100.0;
  const std::uint64_t job_done = job_done_before_step_ + done;
  const double job_s = secs(now - job_start_);
  const double job_rate = job_s > 0 ? double(job_done) / job_s : 0;
  const double eta = job_total_ && job_rate > 0
                         ? double(job_total_ - std::min(job_total_, job_done)) / job_rate
                         : (rate > 0 ? double(total - done) / rate : -1);
  char buf[256];
  if (tty_) {
    const int width = 24, fill = int(pct / 100 * width);
    std::snprintf(buf, sizeof buf, "\r\033[K%s [%s%s] %5.1f%% %.2f M/s ETA %s", step.c_str(),
                  std::string(std::size_t(fill), '#').c_str(),
                  std::string(std::size_t(width - fill), ' ').c_str(), pct, rate / 1e6,
                  eta_text(eta).c_str());
    std::cerr << buf << std::flush;
    line_open_ = true;
  } else {
    std::snprintf(buf, sizeof buf, "%s: %s/%s (%.1f%%) %.2f M/s ETA %s\n", step.c_str(),
                  with_commas(done).c_str(), with_commas(total).c_str(), pct, rate / 1e6,
                  eta_text(eta).c_str());
    std::cerr << buf << std::flush;
  }
}

void Progress::step_done(const std::string& summary) {
  std::lock_guard lock(mutex_);
  job_done_before_step_ += step_done_;
  step_done_ = 0;
  step_.clear();
  if (!enabled_) return;
  clear_open_line();
  std::cerr << summary << "\n" << std::flush;
}

void Progress::status(const std::string& line) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  if (!tty_) {
    std::cerr << line << "\n" << std::flush;
    return;
  }
  std::size_t width = 80;
  if (winsize ws{}; ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) width = ws.ws_col;
  std::cerr << "\r\033[K" << line.substr(0, width - 1) << std::flush;
  line_open_ = true;
}

void Progress::line(const std::string& text) {
  std::lock_guard lock(mutex_);
  clear_open_line();
  std::cerr << text << "\n" << std::flush;
}

void Progress::note(const std::string& text) {
  if (enabled_) line(text);
}

std::string signed_value(int v) {
  std::string s = v > 0 ? "+" : "";
  s += std::to_string(v);
  return s;
}

}  // namespace kalah::cli
