// The SVG chart of `kalah stats --plot`: value signs and stored bits per position, per level.
#pragma once

#include <string>
#include <vector>

#include "db/level_stats.hpp"

namespace kalah::cli {

// A self-contained SVG document with two panels over the levels: the fractions of positive, zero
// and negative values (stacked bars), and stored bits per position (levels with fewer than 4096
// entries left out: their block headers dominate).
std::string stats_svg(const std::string& title, const std::vector<LevelStats>& levels);

}  // namespace kalah::cli
