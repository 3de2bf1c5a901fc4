// The positions a referee sends a bot: drawn inside a table, read from a file, or from games
// played against the bot.
#include "tools/referee/position_source.hpp"

#include <exception>

#include "engine/move.hpp"
#include "engine/random_position.hpp"
#include "engine/record_lines.hpp"
#include "engine/search.hpp"
#include "tools/kgp/kgp_protocol.hpp"

namespace kalah::referee {
int random_legal_pit(const Position& p, std::mt19937_64& rng) {
  std::vector<int> legal;
  for (int i = 0; i < p.m; ++i)
    if (p.own_pit(i) > 0) legal.push_back(i + 1);
  return legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng)];
}

namespace {

class ListSource : public PositionSource {
 public:
  explicit ListSource(std::vector<Position> positions) : positions_(std::move(positions)) {}
  std::optional<Position> next() override {
    if (next_ == positions_.size()) return std::nullopt;
    return positions_[next_++];
  }

 private:
  std::vector<Position> positions_;
  std::size_t next_ = 0;
};

// Games from the start, the bot South in even games and North in odd ones, the referee playing
// the other side.
class GameSource : public PositionSource {
 public:
  GameSource(const SourceOptions& o, Tables& tables, double search_seconds,
             const std::atomic<bool>* cancel)
      : o_(o), tables_(tables), search_seconds_(search_seconds), cancel_(cancel), rng_(o.seed) {
    SearchOptions so;
    so.oracle = tables.oracle(o.m);
    so.randomize = false;
    engine_ = std::make_unique<Searcher>(Rules::kKalah, so);
  }

  std::optional<Position> next() override {
    while (true) {
      if (!in_game_) {
        if (played_games_ == o_.games) return std::nullopt;
        game_ = start_position(o_.m, o_.stones);
        bot_ = played_games_ % 2 == 0 ? Side::kSouth : Side::kNorth;
        in_game_ = true;
      }
      while (!is_over(Rules::kKalah, game_) && game_.mover != bot_) play(referee_move());
      if (!is_over(Rules::kKalah, game_)) {
        Position seen = game_;
        seen.mover = Side::kSouth;  // a KGP state is always played as South
        return seen;
      }
      margins_.push_back(game_.mover == bot_ ? final_margin(game_) : -final_margin(game_));
      in_game_ = false;
      ++played_games_;
    }
  }

  void played(int pit) override { play(pit != 0 ? pit : random_legal_pit(game_, rng_)); }

  std::vector<int> game_margins() const override { return margins_; }

 private:
  void play(int pit) { play_move(Rules::kKalah, game_, pit); }

  // The best move where the table answers every move, else the engine's.
  int referee_move() {
    ExactOracle* oracle = tables_.oracle(game_.m);
    if (std::optional<QueryAnswer> a = answer_without_search(Rules::kKalah, game_, oracle))
      for (const MoveAnswer& m : a->moves)
        if (m.best) return m.pit;
    SearchLimits limits{64, 0, search_seconds_};
    limits.cancel = cancel_;
    return engine_->search(game_, limits).pit;
  }

  SourceOptions o_;
  Tables& tables_;
  double search_seconds_;
  const std::atomic<bool>* cancel_;
  std::mt19937_64 rng_;
  std::unique_ptr<Searcher> engine_;
  Position game_;
  Side bot_ = Side::kSouth;
  bool in_game_ = false;
  int played_games_ = 0;
  std::vector<int> margins_;
};

}  // namespace

std::vector<Position> table_positions(const SourceOptions& o) {
  return draw_table_positions({o.m, o.count, o.lo, o.hi, o.stones, o.seed});
}

std::vector<Position> read_positions(std::istream& in) {
  std::vector<Position> out;
  for_each_record_line(in, [&out](const std::string& text, int number) {
    Position p;
    try {
      if (text.front() == '<') {
        p = kgp::parse_board(text);
      } else {
        p = parse_position(text);
        p.mover = Side::kSouth;  // the mover's pits are the bot's: sent from its side
      }
    } catch (const std::exception& e) {
      throw InputError("line " + std::to_string(number) + ": " + e.what());
    }
    if (is_over(Rules::kKalah, p))
      throw InputError("line " + std::to_string(number) + ": the game is over in '" + text + "'");
    out.push_back(p);
  });
  return out;
}

std::unique_ptr<PositionSource> make_source(const SourceOptions& o, Tables& tables,
                                            double search_seconds,
                                            const std::atomic<bool>* cancel) {
  switch (o.kind) {
    case SourceOptions::Kind::kTable:
      return std::make_unique<ListSource>(table_positions(o));
    case SourceOptions::Kind::kFile:
      return std::make_unique<ListSource>(o.positions);
    case SourceOptions::Kind::kGames:
      return std::make_unique<GameSource>(o, tables, search_seconds, cancel);
  }
  return nullptr;
}

}  // namespace kalah::referee
