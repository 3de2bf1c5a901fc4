// Text drawing of a board (see board_view.hpp).
#include "tools/cli/board_view.hpp"

#include <algorithm>

namespace kalah::cli {

namespace {

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

}  // namespace

std::string draw_board(const Position& p) {
  const int m = p.m;
  std::size_t w = std::max<std::size_t>(2, std::to_string(m).size());
  for (int i = 0; i < m; ++i)
    for (Side s : {Side::kSouth, Side::kNorth})
      w = std::max(w, std::to_string(p.side_pit(s, i)).size());
  const std::string n_kalah = std::to_string(p.side_kalah(Side::kNorth));
  const std::string s_kalah = std::to_string(p.side_kalah(Side::kSouth));
  const std::size_t kw = std::max(n_kalah.size(), s_kalah.size());
  const std::string margin(kw + 3, ' ');  // "N " + kalah + " "
  std::string rule = margin + "+";
  for (int i = 0; i < m; ++i) rule += std::string(w + 2, '-') + "+";
  auto numbers = [&](bool north) {
    std::string line = margin;
    for (int j = 0; j < m; ++j) {
      line += ' ';
      line += pad_left(std::to_string(north ? m - j : j + 1), w);
      line += "  ";
    }
    return line;
  };
  auto pits = [&](Side s) {
    std::string line = margin + "|";
    for (int j = 0; j < m; ++j) {
      const int i = s == Side::kNorth ? m - 1 - j : j;
      line += ' ';
      line += pad_left(std::to_string(p.side_pit(s, i)), w);
      line += " |";
    }
    return line;
  };
  std::string out;
  out += numbers(true) + "  N's pits\n";
  out += rule + "\n";
  out += pits(Side::kNorth) + "\n";
  out += "N " + pad_left(n_kalah, kw) + " " + rule.substr(margin.size()) + " " + s_kalah + " S\n";
  out += pits(Side::kSouth) + "\n";
  out += rule + "\n";
  out += numbers(false) + "  S's pits\n";
  return out;
}

}  // namespace kalah::cli
