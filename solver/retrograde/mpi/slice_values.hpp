// This process's values by request key: its slices of the level being solved and of those below.
#pragma once

#include <atomic>
#include <cstdint>

#include "solver/retrograde/level_tables.hpp"
#include "solver/retrograde/mpi/partition.hpp"

namespace kalah {

// An entry of the level being solved, read and written by several threads at once.
inline std::int8_t load(const std::int8_t& slot) {
  return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
}
inline void store_value(std::int8_t& slot, int v) {
  std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
}

// The value of `key` (request_key) from this process's slices: level `solving` (in bytes, maybe
// not yet solved: kUnknownValue) or a finished level (packed or not: LevelTables::level).
inline int local_value(const LevelTables& levels, int solving, std::uint64_t key) {
  const int level = request_level(key);
  const std::uint64_t local = request_local(key);
  return level == solving ? load(levels.bytes(level)[local]) : levels.level(level).future(local);
}

}  // namespace kalah
