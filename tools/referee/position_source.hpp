// The positions a referee sends a bot: drawn inside a table, read from a file, or from games
// played against the bot.
#pragma once

#include <atomic>
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "tools/referee/grading.hpp"

namespace kalah::referee {

struct SourceOptions {
  enum class Kind { kTable, kFile, kGames };
  Kind kind = Kind::kTable;
  int m = 6;                        // pits a side (kTable, kGames)
  int count = 100;                  // positions (kTable)
  int lo = 2, hi = 20;              // stones in pits (kTable), 2 <= lo <= hi
  int stones = 4;                   // stones a pit at the start: kGames' start, kTable's total
  std::uint64_t seed = 1;           // the same seed, the same positions and games
  std::vector<Position> positions;  // kFile: each with South to move and not over
  int games = 0;                    // kGames
};

// The `count` positions of o drawn inside the table (draw_table_positions: m, lo..hi stones in
// pits, stones a pit at the start, seed). Throws InputError unless 2 <= lo <= hi.
std::vector<Position> table_positions(const SourceOptions& o);

// Positions one a line: our notation (docs/RULES.md; a position with North to move is sent from
// North's side) or a KGP board; blank lines and anything from '#' on skipped. Throws InputError
// naming the line of a malformed position or one whose game is over (kalah rules).
std::vector<Position> read_positions(std::istream& in);

// A legal pit (1-based) of p's mover, each equally likely; p is not over.
int random_legal_pit(const Position& p, std::mt19937_64& rng);

// One session's positions, each with its mover (the bot) as South.
class PositionSource {
 public:
  virtual ~PositionSource() = default;
  // The next position for the bot, or nullopt when there are no more.
  virtual std::optional<Position> next() = 0;
  // The bot's move in the position next() gave last: a legal pit (1-based), or 0 when it made
  // none (the source then plays a random legal move for it, as KGP's servers do).
  virtual void played(int /*pit*/) {}
  // The games played to the end so far, each the bot's final margin (kGames).
  virtual std::vector<int> game_margins() const { return {}; }
};

// A session's source of options o. kGames plays the referee's side with the grader's tables
// (the best move where a table answers every move) and, beyond them, the engine searching
// search_seconds a move, or until *cancel is true (when cancel is not null).
std::unique_ptr<PositionSource> make_source(const SourceOptions& o, Tables& tables,
                                            double search_seconds,
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace kalah::referee
