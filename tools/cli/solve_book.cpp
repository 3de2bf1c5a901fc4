// `kalah solve --book`: the position and its first plies solved into the database's book.
#include "tools/cli/solve_book.hpp"

#include <chrono>
#include <iostream>

#include "db/store.hpp"
#include "db/table_load.hpp"
#include "engine/stopwatch.hpp"
#include "solver/answers/book.hpp"
#include "solver/answers/book_keep.hpp"
#include "tools/cli/db_open.hpp"
#include "tools/cli/solve_report.hpp"
#include "tools/cli/solve_run.hpp"

namespace kalah::cli {

int write_book(const SolveArgs& a, Progress& progress) {
  require_db(a.db_path);
  const Position& p = a.position;
  const TableId table{a.rules, p.m};
  const auto open_start = std::chrono::steady_clock::now();
  progress.status("opening the database at " + a.db_path);
  Store store(a.db_path, true);
  const TableLoadChoice how = resolve_table_load(a.load, store, table, a.db_load.levels,
                                                 a.db_load.cache_bytes(), p.pit_stones());
  if (const std::string note = table_load_note(how, a.db_load.cache_bytes()); !note.empty()) {
    progress.clear_line();
    std::cerr << "note: " << note << "\n";
  }
  Probe probe(store, table, a.db_load.cache_bytes(), how.load, 0, a.db_load.levels);
  const double open_s = seconds_since(open_start);
  SolveOptions base = shared_solve_options(a);
  std::string at;  // "book 3/43"
  if (auto sink = progress.status_sink())
    base.progress = [&at, sink](const std::string& line) { sink(at + ": " + line); };
  TtRange tt;
  const std::string keep_path = book_keep_path(a.db_path, a.rules, p, a.book_plies);
  const BookReport b = build_book(
      a.rules, store, probe, p, a.book_plies, base,
      [&](int done, int total) {
        at = "book " + std::to_string(done) + "/" + std::to_string(total);
        progress.status(at + " positions");
      },
      [&](const Position& q) {
        const std::size_t bytes = solve_tt_bytes(solve_job(a), q, &probe);
        tt.add(bytes);
        return bytes;
      },
      keep_path);
  progress.clear_line();
  print_book_report(a, b, tt, probe, open_s, keep_path);
  return b.unsolved ? 1 : 0;
}

}  // namespace kalah::cli
