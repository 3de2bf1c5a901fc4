// What every kind of `kalah solve` run shares on the command line: its job, the database and the
// options, the TT of a resumed checkpoint, the answer printed with the final checkpoint, the
// certificate.
#include "tools/cli/solve_run.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "engine/stopwatch.hpp"
#include "solver/session/whole_file.hpp"

namespace kalah::cli {

SolveJob solve_job(const SolveArgs& a) {
  return {a.rules, a.position, a.tt_mb, a.tt_skip, a.checkpoint};
}

SolveOptions shared_solve_options(const SolveArgs& a) {
  SolveOptions o;
  o.memo_stones = a.memo;
  o.max_seconds = a.max_time;
  o.threads = a.threads;
  o.guess_depth = a.guess_depth;
  o.tt_skip_above_db = a.tt_skip;
  o.best_first_plies = a.best_first;
  o.best_first_budget = std::uint64_t(a.best_first_budget);
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
  s.opt.tt_bytes = solve_tt_bytes(solve_job(a), p, s.db.probe.get());
  s.opt.tt_start_bytes = solve_tt_start_bytes(solve_job(a), s.opt.tt_bytes);
  return s;
}

Resumed resume_checkpoint(const SolveArgs& a, std::size_t tt_bytes) {
  ResumePlan plan = plan_resume(solve_job(a), tt_bytes);
  Resumed r;
  r.from = std::move(plan.from);
  r.tt = allocate_tt("tt-mb", SolveTT::bytes_for(plan.tt_bytes),
                     [&] { return std::make_unique<SolveTT>(plan.tt_bytes); });
  if (r.from && r.from->has_tt) load_checkpoint_tt(a.checkpoint, *r.tt);
  return r;
}

int print_answer(const SolveArgs& a, const SolveResult& r, const DbUse& use,
                 CheckpointWriter* writer, bool resumed, const std::vector<RootTest>* tests) {
  const SolveCheckpoint* final_checkpoint = writer ? &writer->finish(r) : nullptr;
  if (a.json)
    print_json(a.position, a.rules, r, use, final_checkpoint, tests);
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
  try {
    write_file_whole(path, text);
    return true;
  } catch (const std::runtime_error& e) {
    std::cerr << "kalah solve: warning: cannot write the certificate " << e.what() << "\n";
    return false;
  }
}

}  // namespace kalah::cli
