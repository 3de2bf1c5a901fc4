// resolve_table_load: kAuto decided from the work's reach and the decoded table's size.
#include "db/table_load.hpp"

#include "db/probe.hpp"

namespace kalah {

TableLoad parse_table_load(const std::string& text, const std::string& option) {
  if (text == "auto") return TableLoad::kAuto;
  if (text == "cache") return TableLoad::kCache;
  if (text == "memory") return TableLoad::kMemory;
  throw InputError(option + " must be auto, memory or cache, not '" + text + "'");
}

TableLoadChoice resolve_table_load(TableLoad load, const Store& store, TableId t, int levels,
                                   std::size_t memory_bytes, int reach) {
  if (load != TableLoad::kAuto) return {load};
  const int covered = Probe::covered_levels(store, t, levels);
  if (covered < 0 || reach < covered + kDecodeBeyond) return {TableLoad::kCache};
  const std::uint64_t bytes = Probe::resident_bytes(store, t, levels);
  return {bytes <= memory_bytes ? TableLoad::kMemory : TableLoad::kCache, true, bytes};
}

}  // namespace kalah
