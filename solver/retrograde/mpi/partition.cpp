// The partition of a level among processes: the slices' bounds.
#include "solver/retrograde/mpi/partition.hpp"

namespace kalah {

Slices::Slices(std::uint64_t total, int processes) : begin(std::size_t(processes) + 1) {
  for (int q = 0; q <= processes; ++q)
    begin[q] =
        std::uint64_t(static_cast<unsigned __int128>(total) * unsigned(q) / unsigned(processes));
}

}  // namespace kalah
