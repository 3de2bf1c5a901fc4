// Whether an MPI launcher started this process, and MPI for the life of an object.
#pragma once

namespace kalah {

// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun): `kalah gen` then
// builds in distributed mode.
bool started_by_mpi_launcher();

// MPI for the life of the object (MPI_Init_thread, MPI_Finalize); this process's rank in
// MPI_COMM_WORLD and the number of processes.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every process of the job with this exit code (MPI_Abort): none is left waiting.
  [[noreturn]] static void abort(int code);

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace kalah
