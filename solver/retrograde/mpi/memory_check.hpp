// Whether a process's share of a distributed build fits the memory it may use.
#pragma once

#include <cstdint>

#include "solver/retrograde/build.hpp"

namespace kalah {

// Bytes a process holds while levels 0..max_stones of m pits are built on `processes` processes:
// 1/P of the packed levels below the top one and of the top level's bytes and potential order (5
// bytes an entry), plus its batches' buffers (256 MiB); saturating at UINT64_MAX.
std::uint64_t share_memory_bytes(int m, int max_stones, int processes);

// Throws InputError, naming the memory a process needs on `processes` processes and the limit,
// when the share of o's table does not fit: the limit is o.memory_limit, else 7/8 of
// `machine_bytes` shared by the `local` processes of the job on this machine.
void check_share_fits(const BuildOptions& o, int processes, int local, std::uint64_t machine_bytes);

}  // namespace kalah
