// The moves `kalah kgp` sends for one KGP state: the database, the engine's deepening, the solver.
#include "tools/kgp/kgp_player.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "db/probe.hpp"
#include "engine/stopwatch.hpp"
#include "solver/answers/query.hpp"

namespace kalah::kgp {

struct Player::Size {
  std::unique_ptr<Probe> probe;  // null when the database has no table for this size
  std::unique_ptr<Searcher> engine;
};

Player::Player(PlayerOptions options) : options_(std::move(options)) {
  if (options_.explicit_db || std::filesystem::exists(options_.db))
    store_ = std::make_unique<Store>(options_.db, false);
}
Player::~Player() = default;

Player::Size& Player::size(int m) {
  std::unique_ptr<Size>& s = sizes_[m];
  if (s) return *s;
  s = std::make_unique<Size>();
  if (store_) {  // the server chose the size: a missing table is a note, not an error
    const TableId t{Rules::kKalah, m};
    const std::vector<TableId> held = store_->tables();
    if (std::find(held.begin(), held.end(), t) != held.end()) {
      s->probe = std::make_unique<Probe>(*store_, t);
    } else {
      std::cerr << "kalah kgp: " << no_table_message(options_.db, t, held) << "; playing " << m
                << "-pit boards without it\n";
    }
  }
  SearchOptions search;
  search.tt_bytes = options_.tt_bytes;
  search.oracle = s->probe.get();
  search.randomize = false;  // the same move for the same search: no needless changes of mind
  s->engine = std::make_unique<Searcher>(Rules::kKalah, search);
  return *s;
}

void Player::think(const Position& p, std::atomic<bool>& done,
                   const std::function<void(const MoveNote&)>& send) {
  const auto start = SteadyClock::now();
  last_sent_ = 0;
  const auto send_new = [&](const MoveNote& note) {
    if (note.pit == last_sent_) return;
    last_sent_ = note.pit;
    send(note);
  };
  Size& s = size(p.m);
  const ExactOracle* oracle = s.probe.get();
  if (oracle && p.pit_stones() <= oracle->max_stones()) {  // every move's value from the table
    solver_phase(p, s, done, 0, send_new);
    return;
  }
  if (engine_phase(p, s, done, options_.move_time / 2, send_new)) return;
  const double left = options_.move_time - seconds_since(start);
  if (left > 0 && !done) solver_phase(p, s, done, left, send_new);
}

// Deepens one ply a call, sending each iteration's move; true when the engine proved its move.
bool Player::engine_phase(const Position& p, Size& s, std::atomic<bool>& done, double seconds,
                          const std::function<void(const MoveNote&)>& send) {
  const auto start = SteadyClock::now();
  for (int depth = 1; depth <= 60 && !done; ++depth) {
    const double left = seconds - seconds_since(start);
    if (depth > 1 && left <= 0) break;
    SearchLimits limits{depth, 0, depth > 1 ? left : 0};
    limits.cancel = &done;
    const SearchResult r = s.engine->search(p, limits);
    if (r.budget_ran_out || r.depth < depth || r.pit == 0) break;
    send({r.pit, r.value, r.exact, "engine depth " + std::to_string(r.depth)});
    if (r.exact) {
      done = true;
      return true;
    }
  }
  return false;
}

// The solver (or, for a position inside the table, the table alone) for at most `seconds`
// (0: no limit); sends the first best move once the best moves are proven and sets done.
void Player::solver_phase(const Position& p, Size& s, std::atomic<bool>& done, double seconds,
                          const std::function<void(const MoveNote&)>& send) {
  QuerySearchOptions q;
  q.max_seconds = seconds;
  q.threads = options_.threads;
  q.cancel = &done;
  q.tt = [this] {
    if (!solve_tt_) solve_tt_ = std::make_unique<SolveTT>(options_.tt_bytes);
    return solve_tt_.get();
  };
  bool sent = false;
  const auto send_best = [&](const QueryAnswer& a, const char* source) {
    if (sent || !a.value.exact()) return;
    for (const MoveAnswer& m : a.moves) {
      if (!m.best) continue;
      sent = true;
      send({m.pit, a.value.lower, true, source});
      done = true;
      return;
    }
  };
  q.on_proven = [&](const QueryAnswer& so_far) { send_best(so_far, "solver"); };
  const QueryAnswer a = query_position(Rules::kKalah, p, s.probe.get(), q);
  send_best(a, a.used_solver ? "solver" : "database");
}

}  // namespace kalah::kgp
