// Games already played, as `kalah grade` reads them: a start and its moves, or its positions.
#include "tools/referee/game_record.hpp"

#include <cstdio>
#include <sstream>
#include <string>

#include "engine/move.hpp"

namespace kalah::referee {
namespace {

// `MxK` as the start of m pits of k stones, or nullopt when token is not of that form.
std::optional<Position> start_of(const std::string& token) {
  const auto size = parse_board_size(token);
  if (!size) return std::nullopt;
  return start_position(size->first, size->second);
}

// The pit that leads from a to b in one move, or 0.
int move_between(Rules rules, const Position& a, const Position& b) {
  for (int pit = 1; pit <= a.m; ++pit) {
    if (a.own_pit(pit - 1) == 0) continue;
    Position c = a;
    play_move(rules, c, pit);
    if (c == b) return pit;
  }
  return 0;
}

}  // namespace

std::vector<GameRecord> read_games(std::istream& in, Rules rules) {
  std::vector<GameRecord> games;
  bool in_positions = false;  // the last game is one of position lines, still open
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    std::istringstream tokens(text);
    std::vector<std::string> words;
    for (std::string w; tokens >> w;) words.push_back(w);
    if (words.empty() || words[0][0] == '#') {
      in_positions = in_positions && !words.empty();  // a blank line ends the game
      continue;
    }
    try {
      std::optional<Position> start = start_of(words[0]);
      const std::size_t first_pit = start ? 1 : 2;
      if (!start) {
        if (words.size() < 2) throw InputError("expected a position and its side letter, or MxK");
        start = parse_position(words[0] + " " + words[1]);
      }
      if (first_pit == 2 && words.size() == 2) {  // a position line
        if (!in_positions) {
          games.push_back({number, {*start}, {}});
          in_positions = true;
          continue;
        }
        GameRecord& g = games.back();
        const Position& last = g.positions.back();
        if (is_over(rules, last)) throw InputError("the game ended before " + to_string(*start));
        const int pit = move_between(rules, last, *start);
        if (pit == 0)
          throw InputError("no move leads from " + to_string(last) + " to " + to_string(*start));
        g.pits.push_back(pit);
        g.positions.push_back(*start);
        continue;
      }
      in_positions = false;
      GameRecord g{number, {}, {}};
      Position p = *start;
      for (std::size_t i = first_pit; i < words.size(); ++i) {
        int pit = 0;
        char extra = 0;
        if (std::sscanf(words[i].c_str(), "%d%c", &pit, &extra) != 1)
          throw InputError("'" + words[i] + "' is no pit number");
        if (is_over(rules, p)) throw InputError("pit " + words[i] + " comes after the game's end");
        g.positions.push_back(p);
        g.pits.push_back(pit);
        play_move(rules, p, pit);  // InputError for an illegal pit
      }
      games.push_back(std::move(g));
    } catch (const InputError& e) {
      throw InputError("line " + std::to_string(number) + ": " + e.what());
    }
  }
  // A game of position lines ends with its last position, which no move follows.
  for (GameRecord& g : games)
    if (g.positions.size() > g.pits.size()) g.positions.pop_back();
  return games;
}

}  // namespace kalah::referee
