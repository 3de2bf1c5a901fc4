// Position notation: parsing with precise errors, printing, start positions.
#include "engine/position.hpp"

#include <charconv>
#include <cstdio>
#include <vector>

namespace kalah {

std::optional<std::pair<int, int>> parse_board_size(std::string_view text) {
  const std::string s(text);
  int m = 0, k = 0, used = -1;
  std::sscanf(s.c_str(), "%dx%d%n", &m, &k, &used);
  if (used != int(s.size())) return std::nullopt;
  if (m < 1 || m > kMaxPits || k < 1 || k > kMaxTotalStones / (2 * m))
    throw InputError("'" + s + "' needs 1.." + std::to_string(kMaxPits) +
                     " pits and 1 or more stones a pit, " + std::to_string(kMaxTotalStones) +
                     " stones in all at most");
  return std::pair{m, k};
}

Position start_position(int m, int k, Side first) {
  if (m < 1 || m > kMaxPits)
    throw InputError("pits per side must be 1.." + std::to_string(kMaxPits));
  if (k < 0 || 2L * m * k > kMaxTotalStones)
    throw InputError("stones per pit must be 0.." + std::to_string(kMaxTotalStones / (2 * m)));
  Position p;
  p.m = m;
  p.mover = first;
  for (int i = 0; i < m; ++i) p.own_pit(i) = p.opp_pit(i) = Stones(k);
  return p;
}

Rules parse_rules_name(std::string_view name) {
  if (auto r = parse_rules(name)) return *r;
  throw InputError("unknown rule set '" + std::string(name) + "' (" + rules_names() + ")");
}

namespace {

std::vector<long> parse_side(std::string_view text, const char* who) {
  std::vector<long> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t comma = text.find(',', pos);
    std::string_view field =
        text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
    if (field.empty())
      throw InputError(std::string("empty field in ") + who + "'s side (field " +
                       std::to_string(out.size() + 1) + ")");
    long v = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > kMaxTotalStones))
      throw InputError(std::string("count '") + std::string(field) + "' in " + who +
                       "'s side is too large (at most " + std::to_string(kMaxTotalStones) + ")");
    if (ec != std::errc() || end != field.data() + field.size() || field[0] == '-' ||
        field[0] == '+')
      throw InputError(std::string("'") + std::string(field) + "' in " + who +
                       "'s side is not a non-negative integer");
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

Position parse_position(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos)
    throw InputError("position '" + std::string(text) + "' lacks the side to move (' S' or ' N')");
  const std::string_view board = text.substr(0, space);
  const std::string_view who = text.substr(space + 1);
  if (who != "S" && who != "N")
    throw InputError("side to move must be 'S' or 'N', got '" + std::string(who) + "'");
  const std::size_t slash = board.find('/');
  if (slash == std::string_view::npos || board.find('/', slash + 1) != std::string_view::npos)
    throw InputError("board '" + std::string(board) +
                     "' must have exactly one '/' between S's and N's sides");
  const auto south = parse_side(board.substr(0, slash), "S");
  const auto north = parse_side(board.substr(slash + 1), "N");
  if (south.size() != north.size())
    throw InputError("S's side has " + std::to_string(south.size() - 1) + " pits but N's has " +
                     std::to_string(north.size() - 1));
  if (south.size() < 2) throw InputError("each side needs its pits followed by its kalah");
  const int m = int(south.size()) - 1;
  if (m > kMaxPits)
    throw InputError(std::to_string(m) + " pits per side is outside the supported 1.." +
                     std::to_string(kMaxPits));
  long total = 0;
  for (long v : south) total += v;
  for (long v : north) total += v;
  if (total > kMaxTotalStones)
    throw InputError("position holds " + std::to_string(total) +
                     " stones, more than the supported " + std::to_string(kMaxTotalStones));
  Position p;
  p.m = m;
  p.mover = Side::kSouth;
  for (int i = 0; i <= m; ++i) {
    p.cell[i] = Stones(south[i]);
    p.cell[m + 1 + i] = Stones(north[i]);
  }
  if (who == "N") p.flip();
  return p;
}

std::string to_string(const Position& p) {
  std::string s;
  for (Side side : {Side::kSouth, Side::kNorth}) {
    for (int i = 0; i < p.m; ++i) {
      s += std::to_string(p.side_pit(side, i));
      s += ',';
    }
    s += std::to_string(p.side_kalah(side));
    s += side == Side::kSouth ? '/' : ' ';
  }
  s += side_letter(p.mover);
  return s;
}

bool is_over(Rules r, const Position& p) {
  return with_rules(r, [&](auto rules) { return is_over<decltype(rules)>(p); });
}

bool game_finished(Rules r, const Position& p) {
  return with_rules(r, [&](auto rules) {
    return is_over<decltype(rules)>(p) || (decltype(rules)::kDecidedAtHalf && is_decided(p));
  });
}

}  // namespace kalah
