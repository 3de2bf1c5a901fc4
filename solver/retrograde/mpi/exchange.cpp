// Batched requests for values between processes: two MPI_Alltoallv, the keys out, the values back.
#include "exchange.hpp"

#include <mpi.h>

namespace kalah {

void Exchange::send(const std::vector<Request>& requests) {
  groups_.group(requests);
  MPI_Alltoall(groups_.counts().data(), 1, MPI_INT, rcounts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const int rtotal = displacements(rcounts_, rdispls_);
  received_.resize(std::size_t(rtotal));
  MPI_Alltoallv(groups_.keys().data(), groups_.counts().data(), groups_.displs().data(),
                MPI_UINT64_T, received_.data(), rcounts_.data(), rdispls_.data(), MPI_UINT64_T,
                MPI_COMM_WORLD);
}

void Exchange::reply(std::vector<std::int8_t>& back) {
  const std::vector<int>& counts = groups_.counts();
  grouped_.resize(groups_.keys().size());
  MPI_Alltoallv(answers_.data(), rcounts_.data(), rdispls_.data(), MPI_INT8_T, grouped_.data(),
                counts.data(), groups_.displs().data(), MPI_INT8_T, MPI_COMM_WORLD);
  groups_.ungroup(grouped_, back);
  for (int d = 0; d < w_.size; ++d)  // what crosses to other processes
    if (d != w_.rank)
      bytes += std::uint64_t(counts[d]) * sizeof(std::uint64_t) + std::uint64_t(rcounts_[d]);
}

}  // namespace kalah
