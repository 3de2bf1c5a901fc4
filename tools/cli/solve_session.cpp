// What every kind of `kalah solve` run shares: the database and the TT's size, the checkpoint to
// resume, the stop signals, the answer printed with the final checkpoint, the certificate.
#include "solve_session.hpp"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "stopwatch.hpp"

namespace kalah::cli {

std::size_t tt_bytes_for(const SolveArgs& a, const Position& q, const Probe* probe) {
  if (a.tt_mb > 0) return std::size_t(a.tt_mb) << 20;
  const bool untabled_levels = a.untabled > 0   ? probe != nullptr && probe->resident()
                               : a.untabled < 0 ? untabled_by_default(a.rules, probe)
                                                : false;
  return auto_tt_bytes(q, probe != nullptr ? probe->max_stones() : -1, untabled_levels);
}

SolveOptions shared_solve_options(const SolveArgs& a) {
  SolveOptions o;
  o.memo_stones = a.memo;
  o.max_seconds = a.max_time;
  o.threads = a.threads;
  o.guess_depth = a.guess_depth;
  o.untabled_above_db = a.untabled;
  return o;
}

SolveSetup open_solve(const SolveArgs& a, Progress* progress) {
  SolveSetup s;
  const Position& p = a.position;
  const auto open_start = std::chrono::steady_clock::now();
  if (!a.no_db) {
    if (progress != nullptr && (a.explicit_db || std::filesystem::exists(a.db_path)))
      progress->status("opening the database at " + a.db_path);
    s.db = open_db_for(a.db_path, a.explicit_db, {a.rules, p.m}, a.db_load.cache_bytes(), a.load,
                       a.db_load.levels, p.pit_stones());
  }
  s.open_s = seconds_since(open_start);
  s.opt = shared_solve_options(a);
  s.opt.oracle = s.db.probe.get();
  s.opt.tt_bytes = tt_bytes_for(a, p, s.db.probe.get());
  return s;
}

SolveCheckpoint checkpoint_base(const SolveArgs& a, const std::optional<SolveCheckpoint>& from,
                                std::size_t tt_bytes, int processes) {
  SolveCheckpoint base = from ? *from : new_checkpoint(a.rules, a.position, tt_bytes);
  base.tt_bytes = tt_bytes;
  base.processes = processes;
  return base;
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

Resumed resume_checkpoint(const SolveArgs& a, std::size_t tt_bytes) {
  Resumed r;
  r.from = checkpoint_to_resume(a.checkpoint, a.rules, a.position);
  if (r.from) {
    if (a.tt_mb > 0 && tt_bytes != r.from->tt_bytes)
      throw InputError("checkpoint " + a.checkpoint + " was made with --tt-mb " +
                       std::to_string(r.from->tt_bytes >> 20) + ": give that or leave --tt-mb out");
    tt_bytes = r.from->tt_bytes;
  }
  check_checkpoint_writable(a.checkpoint, SolveTable::bytes_for(tt_bytes));
  r.table = allocate_table("tt-mb", SolveTable::bytes_for(tt_bytes),
                           [&] { return std::make_unique<SolveTable>(tt_bytes); });
  if (r.from && r.from->has_table) load_checkpoint_table(a.checkpoint, *r.table);
  return r;
}

int print_answer(const SolveArgs& a, const SolveResult& r, const DbUse& use,
                 CheckpointWriter* writer, bool resumed) {
  const SolveCheckpoint* final_checkpoint = writer ? &writer->finish(r) : nullptr;
  if (a.json)
    print_json(a.position, a.rules, r, use, final_checkpoint);
  else
    print_text(a.position, a.rules, r, use);
  std::cout.flush();
  if (writer) {
    if (!writer->write_final()) return kOutputNotWritten;
    print_checkpoint(a, *final_checkpoint, resumed);
  }
  return 0;
}

bool write_certificate(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::string why;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    std::error_code ec;
    if (!out)
      why = std::strerror(errno);
    else if (std::filesystem::rename(tmp, path, ec); ec)
      why = ec.message();
    else
      return true;
  }
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  std::cerr << "kalah solve: warning: cannot write the certificate " << path << ": " << why << "\n";
  return false;
}

}  // namespace kalah::cli
