// Database verification: stored checksums, and every entry (or a sample) against its successors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace kalah {

struct LevelCheck {
  int n = 0;
  std::uint64_t entries = 0;
  bool checksum_ok = false;
  std::uint32_t format_version = 0;  // of the level's writer (LevelMeta); 0: record unreadable
  std::uint64_t level_checksum = 0;  // the record's (LevelMeta::checksum) when it was read
  std::string error;                 // why the checksum pass failed, if it did
  std::uint64_t checked = 0;         // entries compared with the best over their successors
  std::uint64_t mismatches = 0;
  // Written by format 1 or 2: its blocks do not name their place (LevelMeta::bound()).
  bool unbound() const { return format_version != 0 && format_version < kFirstBoundFormat; }
};

struct VerifyReport {
  TableId table{};
  int complete_through = -1;
  std::vector<LevelCheck> levels;
  std::vector<std::string> first_mismatches;  // up to 10, "POSITION stored V expected W"
  std::uint64_t checked = 0, mismatches = 0;
  bool ok() const;
};

struct VerifyOptions {
  std::uint64_t sample =
      0;  // 0: every entry (loads all levels: memory as for gen); else K random entries
  std::uint64_t seed = 1;
  int threads = 0;  // of the entry check (all of it, or the sample); 0: all cores
  // The sample's successors are read from the table decoded into memory when that takes at most
  // this many bytes (Probe::resident_bytes), else through a block cache; 0: always the cache.
  std::uint64_t sample_memory_bytes = 0;
  std::function<void(const std::string& step, std::uint64_t done, std::uint64_t total)> progress;
};

// Checks table t of store: each level's blocks and checksum (levels of formats 1 and 2 only when
// store.reads_unbound_levels(), else they fail with the store's refusal), then that each checked
// entry equals the best over its moves of (stones won + or - the successor's stored value), with
// the moves played by the engine's rules (engine/move.hpp), independently of the generator's
// kernel.
VerifyReport verify_table(const Store& store, TableId t, const VerifyOptions& options);

}  // namespace kalah
