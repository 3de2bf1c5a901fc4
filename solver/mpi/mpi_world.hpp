// The distributed build's and solve's calls on MPI_COMM_WORLD: who this process is, reductions,
// all-to-all exchanges, bytes between two processes.
#pragma once

#include <cstdint>
#include <span>

namespace kalah {

// This process's rank in MPI_COMM_WORLD and the number of processes.
struct World {
  int rank = 0, size = 1;
};
World world();

// The largest and the sum of v over all processes (collective).
std::uint64_t max_over_processes(std::uint64_t v);
std::uint64_t sum_over_processes(std::uint64_t v);
// Each v[i] replaced by its largest over all processes (collective, same size everywhere).
void max_over_processes(std::span<std::uint64_t> v);

// Process 0's v in every process's v (collective, same size everywhere).
void broadcast_from_first(std::span<std::int64_t> v);

// Processes of this job on this machine: threads = 0 shares the machine's cores among them.
int processes_on_this_machine();

// `size` bytes from this process to process `dest`, any size (sent in messages of up to 1 GiB; 0:
// one empty message, a signal by its tag alone); recv_bytes is the matching receive.
void send_bytes(const void* data, std::uint64_t size, int dest, int tag);
void recv_bytes(void* data, std::uint64_t size, int source, int tag);

// Each process's counts[d] to process d: received[s] is what process s sent this one
// (MPI_Alltoall, collective; both of size() entries).
void exchange_counts(std::span<const int> counts, std::span<int> received);

// Each process's keys[displs[d], +counts[d]) to process d, into received[rdispls[s], +rcounts[s])
// from process s (MPI_Alltoallv, collective); the same for bytes.
void exchange_all(const std::uint64_t* keys, const int* counts, const int* displs,
                  std::uint64_t* received, const int* rcounts, const int* rdispls);
void exchange_all(const std::int8_t* bytes, const int* counts, const int* displs,
                  std::int8_t* received, const int* rcounts, const int* rdispls);

// A source or tag that matches any, for wait_for_message.
inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;

// Who sent a message, and its tag.
struct Envelope {
  int source = 0, tag = 0;
};

// Waits for a message from `source` with `tag` (either may be any) without keeping a core busy,
// and says who sent it; the message is left to recv_bytes.
Envelope wait_for_message(int source, int tag);

}  // namespace kalah
