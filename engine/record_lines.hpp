// The lines of a text that holds one record a line (a position, say): comments and blanks skipped.
#pragma once

#include <algorithm>
#include <istream>
#include <string>

namespace kalah {

// Calls fn(text, number) for each line of `in` that holds something besides a comment ('#' to the
// end of the line) and blanks (spaces, tabs, a carriage return): that something, and the line's
// number from 1.
template <class Fn>
void for_each_record_line(std::istream& in, Fn&& fn) {
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line.resize(std::min(line.size(), line.find('#')));
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const std::size_t last = line.find_last_not_of(" \t\r");
    fn(line.substr(first, last - first + 1), number);
  }
}

}  // namespace kalah
