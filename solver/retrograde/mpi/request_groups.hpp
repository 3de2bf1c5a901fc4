// Requests for values laid out by the process that holds them, as MPI_Alltoallv sends them.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/retrograde/mpi/partition.hpp"

namespace kalah {

// displs[d] = counts[0] + ... + counts[d - 1] (displs resized to counts); returns the sum of all.
int displacements(const std::vector<int>& counts, std::vector<int>& displs);

// One exchange's requests grouped by owner: keys() holds counts()[d] keys for process d from
// displs()[d] on, in the requests' order within each process. Buffers are kept between calls.
class RequestGroups {
 public:
  explicit RequestGroups(int processes) : counts_(processes), displs_(processes) {}

  // Lays out `requests` (owners below the processes given). Throws std::runtime_error beyond
  // 2^31 requests.
  void group(const std::vector<Request>& requests);
  const std::vector<int>& counts() const { return counts_; }
  const std::vector<int>& displs() const { return displs_; }
  const std::vector<std::uint64_t>& keys() const { return keys_; }
  // The answers to the grouped requests (grouped[i] answers keys()[i]) in the order of the
  // requests: back[i] answers requests[i].
  void ungroup(const std::vector<std::int8_t>& grouped, std::vector<std::int8_t>& back) const;

 private:
  std::vector<int> counts_, displs_;
  std::vector<std::uint32_t> place_;  // request i is keys_[place_[i]]
  std::vector<std::uint64_t> keys_;
};

}  // namespace kalah
