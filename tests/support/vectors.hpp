// Reads the move and value vectors (tests/data, from an independent implementation); a missing file
// fails the test.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kalah::test {

inline std::vector<std::vector<std::string>> read_vector_file(const std::string& name) {
  const std::string path = std::string(KALAH_VECTORS_DIR) + "/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::vector<std::string> row;
    std::string f;
    while (fields >> f) row.push_back(f);
    rows.push_back(row);
  }
  EXPECT_FALSE(rows.empty()) << path << " has no vectors";
  return rows;
}

}  // namespace kalah::test
