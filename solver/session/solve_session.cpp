// A solve run as a job: its TT's size, the checkpoint it resumes, the stop signals and the exit
// status a signal gives.
#include "solver/session/solve_session.hpp"

#include <signal.h>

#include <string>

#include "solver/exhaustive/solve.hpp"
#include "solver/session/checkpoint_writer.hpp"

namespace kalah {

std::size_t solve_tt_bytes(const SolveJob& job, const Position& q, const Probe* probe) {
  if (job.tt_mb > 0) return std::size_t(job.tt_mb) << 20;
  const bool tt_skip_levels = job.tt_skip > 0   ? probe != nullptr && probe->resident()
                              : job.tt_skip < 0 ? tt_skip_by_default(job.rules, probe)
                                                : false;
  return auto_tt_bytes(q, probe != nullptr ? probe->max_stones() : -1, tt_skip_levels);
}

std::size_t solve_tt_start_bytes(const SolveJob& job, std::size_t tt_bytes) {
  if (job.tt_mb > 0 || !job.checkpoint.empty() || tt_bytes <= kAutoTtStartBytes) return 0;
  return kAutoTtStartBytes;
}

SolveCheckpoint checkpoint_base(const SolveJob& job, const std::optional<SolveCheckpoint>& from,
                                std::size_t tt_bytes, int processes) {
  SolveCheckpoint base = from ? *from : new_checkpoint(job.rules, job.position, tt_bytes);
  base.tt_bytes = tt_bytes;
  base.processes = processes;
  return base;
}

ResumePlan plan_resume(const SolveJob& job, std::size_t tt_bytes) {
  ResumePlan plan{checkpoint_to_resume(job.checkpoint, job.rules, job.position), tt_bytes};
  if (plan.from) {
    if (job.tt_mb > 0 && tt_bytes != plan.from->tt_bytes)
      throw InputError("checkpoint " + job.checkpoint + " was made with --tt-mb " +
                       std::to_string(plan.from->tt_bytes >> 20) +
                       ": give that or leave --tt-mb out");
    plan.tt_bytes = plan.from->tt_bytes;
  }
  check_checkpoint_writable(job.checkpoint, SolveTT::bytes_for(plan.tt_bytes));
  return plan;
}

std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};

namespace {
extern "C" void on_stop_signal(int sig) {
  stop_signal.store(sig);
  stop_requested.store(true);
}
}  // namespace

void stop_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int exit_status_after(int otherwise) {
  const int sig = stop_signal.load();
  return sig != 0 ? 128 + sig : otherwise;
}

}  // namespace kalah
