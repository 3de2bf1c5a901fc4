// Test helpers for databases of format 2: a database loaded from an mdb_dump file, and one
// rewritten record by record as format 2 wrote it (db/FORMAT.md, "Compatibility").
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "db/xxhash64.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah::test {

// The records of an `mdb_dump` file (its default "bytevalue" format: a header ending in
// HEADER=END, then each key and value as a line of hex digits after one space, then DATA=END).
inline std::map<std::string, std::string> read_dump(const std::string& dump_file) {
  std::ifstream in(dump_file);
  if (!in) throw std::runtime_error("cannot read " + dump_file);
  std::string line;
  while (std::getline(in, line) && line != "HEADER=END") {
  }
  const auto bytes = [](const std::string& hex) {
    std::string out;
    for (std::size_t i = 1; i + 1 < hex.size(); i += 2)
      out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
  };
  std::map<std::string, std::string> records;
  std::string key;
  while (std::getline(in, line) && line != "DATA=END") {
    if (key.empty()) {
      key = bytes(line);
    } else {
      records[key] = bytes(line);
      key.clear();
    }
  }
  if (line != "DATA=END") throw std::runtime_error(dump_file + ": no DATA=END");
  return records;
}

// A database at `path` holding exactly the records of the mdb_dump file.
inline void load_dump(const std::string& path, const std::string& dump_file) {
  std::map<std::string, std::optional<std::string>> records;
  for (const auto& [k, v] : read_dump(dump_file)) records[k] = v;
  edit_raw(path, records);
}

// Rewrites the database at `path` as format 2 wrote it: version 2 in the header and the table
// records, level records of 48 bytes (no build, no checksum), and each block's first checksum
// over its own bytes alone.
inline void rewrite_as_format2(const std::string& path) {
  const auto le32 = [](std::string& s, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) s[at + std::size_t(i)] = char(v >> (8 * i));
  };
  const auto get32 = [](const std::string& s, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | std::uint8_t(s[at + std::size_t(i)]);
    return v;
  };
  std::map<std::string, std::optional<std::string>> edits;
  for (auto [key, value] : read_raw(path)) {
    switch (key[0]) {
      case 0:  // header: magic, version
      case 1:  // table record: version first
        le32(value, key[0] == 0 ? 8 : 0, 2);
        break;
      case 2:  // level record
        value.resize(48);
        le32(value, 16, 2);
        break;
      case 3:  // block group: k, reserved, k + 1 offsets, the blocks
        for (std::uint32_t j = 0, k = get32(value, 0); j < k; ++j) {
          const std::uint32_t begin = get32(value, 8 + 4 * j), end = get32(value, 12 + 4 * j);
          const std::uint64_t sum = xxh64(value.data() + begin + 8, end - begin - 8);
          for (int i = 0; i < 8; ++i) value[begin + std::size_t(i)] = char(sum >> (8 * i));
        }
        break;
      default:
        continue;
    }
    edits[key] = value;
  }
  edit_raw(path, edits);
}

}  // namespace kalah::test
