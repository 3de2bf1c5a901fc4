// Batched requests for values between processes: two MPI_Alltoallv, the keys out, the values back.
#include "solver/retrograde/mpi/exchange.hpp"

namespace kalah {

void Exchange::send(const std::vector<Request>& requests) {
  groups_.group(requests);
  exchange_counts(groups_.counts(), rcounts_);
  const int rtotal = displacements(rcounts_, rdispls_);
  received_.resize(std::size_t(rtotal));
  exchange_all(groups_.keys().data(), groups_.counts().data(), groups_.displs().data(),
               received_.data(), rcounts_.data(), rdispls_.data());
}

void Exchange::reply(std::vector<std::int8_t>& back) {
  const std::vector<int>& counts = groups_.counts();
  grouped_.resize(groups_.keys().size());
  exchange_all(answers_.data(), rcounts_.data(), rdispls_.data(), grouped_.data(), counts.data(),
               groups_.displs().data());
  groups_.ungroup(grouped_, back);
  for (int d = 0; d < w_.size; ++d)  // what crosses to other processes
    if (d != w_.rank)
      bytes += std::uint64_t(counts[d]) * sizeof(std::uint64_t) + std::uint64_t(rcounts_[d]);
}

}  // namespace kalah
