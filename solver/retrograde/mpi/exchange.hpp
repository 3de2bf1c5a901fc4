// Batched requests for values between processes: two MPI_Alltoallv, the keys out, the values back.
#pragma once

#include <cstdint>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "solver/mpi/mpi_world.hpp"
#include "solver/retrograde/mpi/partition.hpp"
#include "solver/retrograde/mpi/request_groups.hpp"

namespace kalah {

// Entries expanded, or stored values gathered, between two exchanges.
constexpr std::uint64_t kBatch = 1 << 20;

// Exchanges of requests for values: every process sends its requests to their owners, which
// answer each with `answer(key)`; back[i] answers requests[i]. Collective: every process calls
// run() the same number of times. Requests to this process never leave it.
class Exchange {
 public:
  explicit Exchange(World w) : w_(w), groups_(w.size), rcounts_(w.size) {}

  template <class Answer>
  void run(const std::vector<Request>& requests, std::vector<std::int8_t>& back,
           const Answer& answer) {
    send(requests);
    answers_.resize(received_.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, received_.size(), 1 << 14),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i)
                          answers_[i] = std::int8_t(answer(received_[i]));
                      });
    reply(back);
  }

  std::uint64_t bytes = 0;  // sent by this process to the others

 private:
  // The requests to their owners: received_ holds the keys asked of this process.
  void send(const std::vector<Request>& requests);
  // answers_ back to the askers; back in the order of the requests sent.
  void reply(std::vector<std::int8_t>& back);

  World w_;
  RequestGroups groups_;
  std::vector<int> rcounts_, rdispls_;
  std::vector<std::uint64_t> received_;
  std::vector<std::int8_t> answers_, grouped_;
};

}  // namespace kalah
