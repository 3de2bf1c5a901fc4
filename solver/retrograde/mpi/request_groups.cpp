// Requests for values laid out by owner, and their answers put back in the requests' order.
#include "solver/retrograde/mpi/request_groups.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace kalah {

int displacements(const std::vector<int>& counts, std::vector<int>& displs) {
  displs.resize(counts.size());
  int total = 0;
  for (std::size_t d = 0; d < counts.size(); ++d) {
    displs[d] = total;
    total += counts[d];
  }
  return total;
}

void RequestGroups::group(const std::vector<Request>& requests) {
  std::fill(counts_.begin(), counts_.end(), 0);
  for (const Request& r : requests) ++counts_[int(r.owner)];
  displacements(counts_, displs_);
  if (requests.size() > std::size_t(INT_MAX))
    throw std::runtime_error("distributed build: an exchange exceeds 2^31 values");
  place_.resize(requests.size());
  keys_.resize(requests.size());
  std::vector<int> at(displs_);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    place_[i] = std::uint32_t(at[int(requests[i].owner)]++);
    keys_[place_[i]] = requests[i].key;
  }
}

void RequestGroups::ungroup(const std::vector<std::int8_t>& grouped,
                            std::vector<std::int8_t>& back) const {
  back.resize(place_.size());
  for (std::size_t i = 0; i < place_.size(); ++i) back[i] = grouped[place_[i]];
}

}  // namespace kalah
