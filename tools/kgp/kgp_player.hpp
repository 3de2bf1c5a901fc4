// The moves `kalah kgp` sends for one KGP state: the database, the engine's deepening, the solver.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "db/store.hpp"
#include "engine/position.hpp"
#include "engine/search.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah::kgp {

struct PlayerOptions {
  std::string db;            // the database directory (kalah kgp's --db)
  bool explicit_db = false;  // --db given: a board size without a table is still only a note
  double move_time = 2;      // seconds per state, > 0
  std::size_t tt_bytes = std::size_t(64) << 20;  // the engine's and the solver's TTs, each
  int threads = 1;                               // the solver's threads
};

// Why a move was sent: its value for the mover and whether it is exact.
struct MoveNote {
  int pit = 0;
  int value = 0;
  bool exact = false;
  std::string source;  // "database", "engine depth D" or "solver"
};

// Chooses moves under KGP's rules (our `kalah` rule set, RULES.md) for one board after another;
// keeps the database's table and an engine per board size, and the solver's TT, between states.
// Throws DbError when the database is given (explicit_db) but cannot be opened.
class Player {
 public:
  explicit Player(PlayerOptions options);
  ~Player();

  // Thinks about p (not over) until its best move is proven, move_time has passed or `done` is
  // set by another thread; calls send for the first move and for each later one that differs
  // from the move sent before, and sets `done` itself when a move is proven best. Exact moves
  // come from the database when it covers p, else from the solver when it proves one in the time
  // the engine leaves it (half of move_time, or what the engine's proof left).
  void think(const Position& p, std::atomic<bool>& done,
             const std::function<void(const MoveNote&)>& send);

 private:
  struct Size;  // the database table and the engine for one board size
  Size& size(int m);
  bool engine_phase(const Position& p, Size& s, std::atomic<bool>& done, double seconds,
                    const std::function<void(const MoveNote&)>& send);
  void solver_phase(const Position& p, Size& s, std::atomic<bool>& done, double seconds,
                    const std::function<void(const MoveNote&)>& send);

  PlayerOptions options_;
  std::unique_ptr<Store> store_;  // the database, null without one; one Probe a board size
  std::map<int, std::unique_ptr<Size>> sizes_;
  std::unique_ptr<SolveTT> solve_tt_;  // the solver's, kept for every state and size
  int last_sent_ = 0;                  // the pit sent last for the current state
};

}  // namespace kalah::kgp
