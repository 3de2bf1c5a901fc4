// What the store holds: solved tables (one per rule set and board size) made of levels.
#pragma once

#include <cstdint>
#include <string>

#include "engine/rules.hpp"

namespace kalah {

// One solved table per (rule set, pits per side).
struct TableId {
  Rules rules;
  int m;
  friend bool operator==(const TableId&, const TableId&) = default;
};

// "wetherell m=6": how messages and listings name a table.
std::string to_string(TableId t);
// A level's build identity (LevelMeta::build) as messages and listings name it: 16 hex digits.
std::string build_name(std::uint64_t build);

// A level of `entries` values is stored in blocks of block_entries values, the last holding the
// rest: block_count of them, block b holding block_size values from b * block_entries on.
constexpr std::uint64_t block_count(std::uint64_t entries, std::uint64_t block_entries) {
  return (entries + block_entries - 1) / block_entries;
}
constexpr std::uint64_t block_size(std::uint64_t entries, std::uint64_t block_entries,
                                   std::uint64_t b) {
  return entries - b * block_entries < block_entries ? entries - b * block_entries : block_entries;
}

// The first format version whose blocks' checksums name their place (db/FORMAT.md, "Block").
constexpr std::uint32_t kFirstBoundFormat = 3;

// The metadata record of one stored level (db/FORMAT.md, "Level record").
struct LevelMeta {
  std::uint64_t entries;   // C(n+2m-1, 2m-1)
  std::uint64_t checksum;  // XXH64 over the blocks' value checksums in block order (FORMAT.md)
  std::uint32_t format_version;        // of the store that wrote the level
  std::uint32_t block_entries;         // values per block (the last block may hold fewer)
  std::uint64_t compressed_bytes;      // sum of the stored block values, headers included
  bool complete;                       // the level was committed in full
  std::uint32_t blocks = 0;            // ceil(entries / block_entries)
  std::uint32_t blocks_per_group = 1;  // blocks per LMDB record (the last record may hold fewer)
  int codec = 0;                       // block codec id (FORMAT.md)
  int zstd_level = 0;                  // compression level the writer used (informational)
  // The identity of the run that wrote the level, which every block's checksum covers with the
  // block's table, level and index (formats from kFirstBoundFormat on; 0 before).
  std::uint64_t build = 0;
  // Whether each block's checksum names its place: only then is a block stored under another
  // key, level, table or build told from the right one.
  bool bound() const { return format_version >= kFirstBoundFormat; }
};

}  // namespace kalah
