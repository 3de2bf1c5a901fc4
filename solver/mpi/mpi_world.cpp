// The distributed build's and solve's calls on MPI_COMM_WORLD: who this process is, reductions,
// all-to-all exchanges, bytes between two processes.
#include "solver/mpi/mpi_world.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace kalah {

namespace {

constexpr std::uint64_t kChunk = 1ull << 30;  // bytes of one point-to-point message

std::uint64_t reduce(std::uint64_t v, MPI_Op op) {
  std::uint64_t r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
  return r;
}

}  // namespace

World world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

std::uint64_t max_over_processes(std::uint64_t v) {
  return reduce(v, MPI_MAX);
}
std::uint64_t sum_over_processes(std::uint64_t v) {
  return reduce(v, MPI_SUM);
}

void max_over_processes(std::span<std::uint64_t> v) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
}

void broadcast_from_first(std::span<std::int64_t> v) {
  MPI_Bcast(v.data(), int(v.size()), MPI_INT64_T, 0, MPI_COMM_WORLD);
}

int processes_on_this_machine() {
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int n = 1;
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return n;
}

void send_bytes(const void* data, std::uint64_t size, int dest, int tag) {
  const auto* p = static_cast<const char*>(data);
  std::uint64_t at = 0;
  do {
    MPI_Send(p + at, int(std::min(kChunk, size - at)), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
    at += kChunk;
  } while (at < size);
}

void recv_bytes(void* data, std::uint64_t size, int source, int tag) {
  auto* p = static_cast<char*>(data);
  std::uint64_t at = 0;
  do {
    MPI_Recv(p + at, int(std::min(kChunk, size - at)), MPI_BYTE, source, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    at += kChunk;
  } while (at < size);
}

void exchange_counts(std::span<const int> counts, std::span<int> received) {
  MPI_Alltoall(counts.data(), 1, MPI_INT, received.data(), 1, MPI_INT, MPI_COMM_WORLD);
}

void exchange_all(const std::uint64_t* keys, const int* counts, const int* displs,
                  std::uint64_t* received, const int* rcounts, const int* rdispls) {
  MPI_Alltoallv(keys, counts, displs, MPI_UINT64_T, received, rcounts, rdispls, MPI_UINT64_T,
                MPI_COMM_WORLD);
}

void exchange_all(const std::int8_t* bytes, const int* counts, const int* displs,
                  std::int8_t* received, const int* rcounts, const int* rdispls) {
  MPI_Alltoallv(bytes, counts, displs, MPI_INT8_T, received, rcounts, rdispls, MPI_INT8_T,
                MPI_COMM_WORLD);
}

Envelope wait_for_message(int source, int tag) {
  MPI_Status st;
  for (int flag = 0;;) {
    MPI_Iprobe(source == kAnySource ? MPI_ANY_SOURCE : source, tag == kAnyTag ? MPI_ANY_TAG : tag,
               MPI_COMM_WORLD, &flag, &st);
    if (flag) return {st.MPI_SOURCE, st.MPI_TAG};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace kalah
