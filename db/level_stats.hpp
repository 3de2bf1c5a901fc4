// Per-level statistics of a stored table: value signs and stored size (for `kalah stats`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace kalah {

// One stored level. Values are future margins (RULES.md): positive means the side to move gains
// more of the stones still in pits than the opponent does.
struct LevelStats {
  int n = 0;
  // In the run of sound levels 0..k within what the table record claims complete
  // (Store::complete_through): the levels a probe reads when the claim holds.
  bool complete = false;
  // Why the level cannot be read, empty when it can: its record damaged, or missing where the
  // table record claims it, or a block or the checksum damaged (the DbError's message). The counts
  // are then 0.
  std::string damage;
  std::uint64_t entries = 0;
  std::uint64_t positive = 0;        // value > 0
  std::uint64_t zero = 0;            // value == 0
  std::uint64_t negative = 0;        // value < 0
  std::uint64_t stored_bytes = 0;    // block values, headers included (LevelMeta::compressed_bytes)
  std::uint32_t format_version = 0;  // of the writer (LevelMeta); 0 when the record is unreadable
  std::uint64_t build = 0;           // LevelMeta::build: the run that wrote the level
  double bits_per_position() const {
    return entries ? 8.0 * double(stored_bytes) / double(entries) : 0.0;
  }
};

// Every stored level of t in increasing n, each read and verified completely, and every damaged
// level (LevelStats::damage), those the table record claims but which have no record included.
// Levels beyond a gap or a damaged level are listed too, with complete = false. A level of format
// 1 or 2 is read with its format's checks when store.reads_unbound_levels(), else it is listed
// with the store's refusal as its damage.
std::vector<LevelStats> level_stats(const Store& store, TableId t);

}  // namespace kalah
