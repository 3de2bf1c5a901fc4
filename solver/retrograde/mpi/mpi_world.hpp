// The distributed build's calls on MPI_COMM_WORLD: who this process is, reductions, bulk bytes.
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

// Processes of this job on this machine: threads = 0 shares the machine's cores among them.
int processes_on_this_machine();

// `size` bytes from this process to process `dest`, any size (sent in messages of up to 1 GiB);
// recv_bytes is the matching receive.
void send_bytes(const void* data, std::uint64_t size, int dest, int tag);
void recv_bytes(void* data, std::uint64_t size, int source, int tag);

}  // namespace kalah
