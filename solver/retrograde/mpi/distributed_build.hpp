// The database build across MPI processes: each level split into one slice per process.
#pragma once

#include <cstdint>
#include <functional>

#include "solver/mpi/mpi_session.hpp"
#include "solver/retrograde/build.hpp"

namespace kalah {

// What one level of a distributed build cost.
struct DistributedLevelStats {
  int n = 0;
  std::uint64_t entries = 0;
  double solve_s = 0, store_s = 0;
  int bands = 0;                      // potentials solved one after the other (below)
  std::uint64_t solve_bytes = 0;      // sent between processes while solving, all processes
  std::uint64_t store_bytes = 0;      // sent while gathering and collecting the blocks
  std::uint64_t peak_memory_max = 0;  // the largest peak resident memory of a process, bytes
  std::uint64_t peak_memory_sum = 0;  // the processes' peaks added up
};

// What a distributed build reports, on process 0 only.
struct DistributedEvents {
  std::function<void(int n, int stored)> loading;  // handing a stored level out to the slices
  std::function<void(int n, std::uint64_t done, std::uint64_t total)> solving;
  std::function<void(const DistributedLevelStats&)> level_done;
};

// build_database() on every process of MPI_COMM_WORLD, each called with the same options. Level
// n's LevelIndex ranks are split into one contiguous slice per process; a process solves its
// slice and keeps its slices of the finished levels (packed), so memory per process falls as
// 1/P. All processes solve a level band by band of equal potential (the stones' total distance
// to their owners' kalahs), in increasing potential: a move that keeps every stone in the pits
// lowers it, so every successor is solved before it is needed. Successors' values held by other
// processes are requested and answered in batches (MPI_Alltoallv). The stored blocks are then
// gathered where the values are, encoded there and sent to process 0, which alone holds the
// store (the others pass nullptr) and commits each level in one transaction: the table is the
// one a single process builds, byte for byte. Resuming reads the stored levels on process 0 and
// sends each process its slices. Throws as build_database() does; a failure on one process must
// end the job (MpiSession::abort), since the others wait for it.
BuildReport build_database_distributed(Store* store, const BuildOptions& options,
                                       const DistributedEvents& events = {});

}  // namespace kalah
