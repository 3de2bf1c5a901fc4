// The distributed build's test hook that kills a process, as a crashed machine would.
#include "solver/retrograde/mpi/fault_injection.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace kalah {

bool kill_requested(const char* spec, int rank, int n) {
  if (spec == nullptr) return false;
  int r = -1, level = -1;
  return std::sscanf(spec, "%d:%d", &r, &level) == 2 && r == rank && level == n;
}

void maybe_killed(int rank, int n) {
  if (kill_requested(std::getenv("KALAH_TEST_KILL_AT"), rank, n)) std::raise(SIGKILL);
}

}  // namespace kalah
