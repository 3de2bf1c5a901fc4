// build_book and verify_book: the opening book written through the solver, and checked.
#include "solver/answers/book.hpp"

#include <chrono>
#include <map>
#include <memory>

#include "db/db_error.hpp"
#include "db/index.hpp"
#include "engine/move.hpp"
#include "engine/oracle.hpp"
#include "engine/stopwatch.hpp"
#include "solver/answers/book_keep.hpp"

namespace kalah {

namespace {

std::vector<Stones> pits_of(const Position& p) {
  std::vector<Stones> v(std::size_t(2 * p.m));
  for (int i = 0; i < p.m; ++i) {
    v[std::size_t(i)] = p.own_pit(i);
    v[std::size_t(p.m + i)] = p.opp_pit(i);
  }
  return v;
}

// The future margin of a successor (kalahs included in c): from the oracle, else by solving.
std::optional<int> successor_future(Rules rules, const Position& c, Probe& probe,
                                    double max_seconds, std::uint64_t& nodes) {
  if (is_over(rules, c)) return c.own_pit_stones() - c.opp_pit_stones();
  if (auto f = probe.future(c)) return f;
  SolveOptions opt;
  opt.oracle = &probe;
  opt.max_seconds = max_seconds;
  opt.find_moves = false;
  const SolveResult r = solve(rules, c, opt);
  nodes += r.nodes;
  if (!r.complete && r.lower != r.upper) return std::nullopt;
  return r.lower - c.kalah_difference();
}

}  // namespace

BookReport build_book(Rules rules, Store& store, Probe& probe, const Position& root, int plies,
                      const SolveOptions& base, const std::function<void(int, int)>& progress,
                      const std::function<std::size_t(const Position&)>& tt_bytes,
                      const std::string& keep_path) {
  const auto start = std::chrono::steady_clock::now();
  BookReport rep;
  // Distinct pit arrangements within `plies` moves, breadth first.
  std::map<std::vector<Stones>, Position> seen;
  std::vector<Position> frontier{root};
  seen.emplace(pits_of(root), root);
  for (int ply = 0; ply < plies; ++ply) {
    std::vector<Position> next;
    for (const Position& p : frontier) {
      if (is_over(rules, p)) continue;
      for (int pit = 1; pit <= p.m; ++pit) {
        if (p.own_pit(pit - 1) == 0) continue;
        Position c = p;
        play_move(rules, c, pit);
        if (seen.emplace(pits_of(c), c).second) next.push_back(c);
      }
    }
    frontier = std::move(next);
  }
  rep.positions = int(seen.size());
  std::unique_ptr<BookKeep> keep;
  if (!keep_path.empty())
    keep = std::make_unique<BookKeep>(keep_path, rules, root, plies, rep.positions);
  std::vector<std::pair<std::vector<Stones>, int>> entries;
  int done = 0;
  for (const auto& [pits, p] : seen) {
    if (progress) progress(done, rep.positions);
    ++done;
    if (is_over(rules, p) || p.pit_stones() <= probe.max_stones()) continue;
    if (const auto kept = keep ? keep->find(pits) : std::nullopt) {
      entries.emplace_back(pits, *kept);
      ++rep.reused;
      continue;
    }
    SolveOptions opt = base;
    opt.oracle = &probe;
    opt.find_moves = false;
    if (tt_bytes) opt.tt_bytes = tt_bytes(p);
    const SolveResult r = solve(rules, p, opt);
    rep.nodes += r.nodes;
    if (!r.complete && r.lower != r.upper) {
      ++rep.unsolved;
      continue;
    }
    entries.emplace_back(pits, r.lower - p.kalah_difference());
    if (keep) keep->keep(pits, entries.back().second);
  }
  if (progress) progress(rep.positions, rep.positions);
  if (keep) keep->sync();
  try {
    store.put_book(probe.table(), entries);
  } catch (const DbError& e) {
    if (!keep) throw;
    if (keep->size() == 0) {
      keep->remove();
      throw;
    }
    const std::string why = e.what();
    throw DbError(why + "; " +
                  (why.find("disk full") != std::string::npos ? "free space" : "mend that") +
                  " and run the same command again: the " + std::to_string(keep->size()) +
                  " solved positions are kept in " + keep->path());
  }
  if (keep) keep->remove();
  rep.stored = int(entries.size());
  rep.seconds = seconds_since(start);
  return rep;
}

BookCheck verify_book(Rules rules, const Store& store, Probe& probe, double max_seconds) {
  BookCheck check;
  const TableId t = probe.table();
  std::uint64_t nodes = 0;
  for (const auto& [pits, stored] : store.book_entries(t)) {
    ++check.entries;
    const Position p = position_of_cells(t.m, pits.data());
    int best = -1 << 20;
    bool known = true;
    if (is_over(rules, p)) {
      best = p.own_pit_stones() - p.opp_pit_stones();
    } else {
      for (int pit = 1; pit <= p.m && known; ++pit) {
        if (p.own_pit(pit - 1) == 0) continue;
        Position c = p;
        const bool again = play_move(rules, c, pit);
        const int gain = again ? c.own_kalah() : c.opp_kalah();
        const auto f = successor_future(rules, c, probe, max_seconds, nodes);
        if (!f)
          known = false;
        else
          best = std::max(best, future_after_move(gain, again, *f));
      }
    }
    if (!known) {
      ++check.unchecked;
      continue;
    }
    ++check.checked;
    if (best != stored) {
      ++check.wrong;
      if (check.examples.size() < 5)
        check.examples.push_back(to_string(p) + " book " + std::to_string(stored) + " expected " +
                                 std::to_string(best));
    }
  }
  return check;
}

}  // namespace kalah
