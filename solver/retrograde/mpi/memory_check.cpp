// Whether a process's share of a distributed build fits the memory it may use.
#include "solver/retrograde/mpi/memory_check.hpp"

#include <algorithm>
#include <string>

namespace kalah {

std::uint64_t share_memory_bytes(int m, int max_stones, int processes) {
  using Wide = unsigned __int128;
  const Wide total =
      Wide(build_memory_bytes(m, max_stones, true)) + 4 * Wide(level_entries(m, max_stones));
  const Wide share = std::min<Wide>(total, UINT64_MAX) / unsigned(processes) + (Wide(256) << 20);
  return share > UINT64_MAX ? UINT64_MAX : std::uint64_t(share);
}

void check_share_fits(const BuildOptions& o, int processes, int local,
                      std::uint64_t machine_bytes) {
  const TableId t = o.table;
  const std::uint64_t need = share_memory_bytes(t.m, o.max_stones, processes);
  const std::uint64_t limit = o.memory_limit > 0
                                  ? o.memory_limit
                                  : (machine_bytes - machine_bytes / 8) / std::uint64_t(local);
  if (need <= limit) return;
  const std::string limit_is = o.memory_limit > 0 ? std::string("--memory-limit")
                                                  : "7/8 of this machine's memory shared by its " +
                                                        std::to_string(local) + " processes";
  throw InputError("levels 0.." + std::to_string(o.max_stones) + " of " + to_string(t) +
                   " need about " + std::to_string(need >> 20) + " MiB a process on " +
                   std::to_string(processes) + " processes; the limit is " +
                   std::to_string(limit >> 20) + " MiB a process (" + limit_is +
                   "): run more processes or machines");
}

}  // namespace kalah
