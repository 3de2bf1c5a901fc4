// How `kalah gen` and `kalah solve` run under mpirun: one body on every process, one failure
// policy for the job.
#pragma once

#ifdef KALAH_MPI
#include <exception>
#include <iostream>

#include "engine/position.hpp"
#include "solver/mpi/mpi_session.hpp"

namespace kalah::cli {

// Runs body(mpi) on this process of an mpirun job of `kalah COMMAND` and returns its exit status.
// An InputError (every process meets the same one) is said once, by process 0, and ends every
// process with status 2; any other failure is said by the process that met it and ends every
// process with status 1 (MPI_Abort: no process is left waiting).
template <class Body>
int run_distributed(const char* command, Body&& body) {
  MpiSession mpi(nullptr, nullptr);
  try {
    return body(mpi);
  } catch (const InputError& e) {
    if (mpi.rank() == 0) std::cerr << "kalah " << command << ": error: " << e.what() << std::endl;
    MpiSession::abort(2);
  } catch (const std::exception& e) {
    std::cerr << "kalah " << command << ": error (process " << mpi.rank() << " of " << mpi.size()
              << "): " << e.what() << std::endl;
    MpiSession::abort(1);
  }
}

}  // namespace kalah::cli
#endif
