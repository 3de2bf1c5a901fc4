// The distributed build: slices of each level on MPI processes, values exchanged in batches.
#include "distributed_build.hpp"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "block_codec.hpp"
#include "level_kernel.hpp"
#include "physical_memory.hpp"
#include "storage_order.hpp"

namespace kalah {

bool started_by_mpi_launcher() {
  // Open MPI's mpirun, MPICH's hydra (and Slurm's srun with PMI), PMIx launchers.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  MPI_Finalize();
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
}

namespace {

constexpr std::uint64_t kBatch = 1 << 20;     // entries expanded between two exchanges
constexpr std::uint64_t kChunk = 1ull << 30;  // bytes of one point-to-point message

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::uint64_t peak_memory_bytes() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return std::uint64_t(ru.ru_maxrss) * 1024;  // Linux: KiB
}

struct World {
  int rank = 0, size = 1;
};

World world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

std::uint64_t max_over_processes(std::uint64_t v) {
  std::uint64_t r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return r;
}
std::uint64_t sum_over_processes(std::uint64_t v) {
  std::uint64_t r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

// Processes of this job on this machine: threads = 0 shares the machine's cores among them.
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
  for (std::uint64_t at = 0; at < size; at += kChunk)
    MPI_Send(p + at, int(std::min(kChunk, size - at)), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}
void recv_bytes(void* data, std::uint64_t size, int source, int tag) {
  auto* p = static_cast<char*>(data);
  for (std::uint64_t at = 0; at < size; at += kChunk)
    MPI_Recv(p + at, int(std::min(kChunk, size - at)), MPI_BYTE, source, tag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}

// Level n's slices: process q holds LevelIndex ranks [begin[q], begin[q+1]).
struct Slices {
  std::vector<std::uint64_t> begin;

  Slices() = default;
  Slices(std::uint64_t total, int processes) : begin(std::size_t(processes) + 1) {
    for (int q = 0; q <= processes; ++q)
      begin[q] =
          std::uint64_t(static_cast<unsigned __int128>(total) * unsigned(q) / unsigned(processes));
  }
  std::uint64_t count(int q) const { return begin[q + 1] - begin[q]; }
  // The process holding rank r: the equal split guessed, then corrected by a step or two.
  int owner(std::uint64_t r) const {
    const int processes = int(begin.size()) - 1;
    const std::uint64_t total = begin[processes];
    int q = total <= UINT64_MAX / unsigned(processes)
                ? int(r * unsigned(processes) / total)
                : int(static_cast<unsigned __int128>(r) * unsigned(processes) / total);
    while (r < begin[q]) --q;
    while (r >= begin[q + 1]) ++q;
    return q;
  }
};

// A request for one value: the owner's local index and the level.
std::uint64_t request_key(std::uint64_t local, int level) {
  return local << 8 | unsigned(level);
}

// One value asked of another process (or of this one): its request_key and the process that
// holds it, in one word (slices hold at most 2^32 entries, jobs at most 2^16 processes).
struct Request {
  std::uint64_t key : 48;
  std::uint64_t owner : 16;
};
static_assert(sizeof(Request) == 8);
constexpr int kMaxProcesses = 1 << 16;

// Exchanges of requests for values: every process sends its requests to their owners, which
// answer each with `answer(key)`; back[i] answers requests[i]. Collective: every process calls
// run() the same number of times. Requests to this process never leave it.
class Exchange {
 public:
  explicit Exchange(World w)
      : w_(w), counts_(w.size), displs_(w.size), rcounts_(w.size), rdispls_(w.size) {}

  template <class Answer>
  void run(const std::vector<Request>& requests, std::vector<std::int8_t>& back,
           const Answer& answer) {
    // Grouped by owner: request i goes to place_[i] of the send buffer.
    std::fill(counts_.begin(), counts_.end(), 0);
    for (const Request& r : requests) ++counts_[int(r.owner)];
    int total = 0;
    for (int d = 0; d < w_.size; ++d) {
      displs_[d] = total;
      total += counts_[d];
    }
    if (requests.size() > std::size_t(INT_MAX))
      throw std::runtime_error("distributed build: an exchange exceeds 2^31 values");
    place_.resize(requests.size());
    send_.resize(requests.size());
    std::vector<int> at(displs_);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      place_[i] = std::uint32_t(at[int(requests[i].owner)]++);
      send_[place_[i]] = requests[i].key;
    }
    MPI_Alltoall(counts_.data(), 1, MPI_INT, rcounts_.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int rtotal = 0;
    for (int d = 0; d < w_.size; ++d) {
      rdispls_[d] = rtotal;
      rtotal += rcounts_[d];
    }
    received_.resize(std::size_t(rtotal));
    MPI_Alltoallv(send_.data(), counts_.data(), displs_.data(), MPI_UINT64_T, received_.data(),
                  rcounts_.data(), rdispls_.data(), MPI_UINT64_T, MPI_COMM_WORLD);
    answers_.resize(std::size_t(rtotal));
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, received_.size(), 1 << 14),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i)
                          answers_[i] = std::int8_t(answer(received_[i]));
                      });
    grouped_.resize(std::size_t(total));
    MPI_Alltoallv(answers_.data(), rcounts_.data(), rdispls_.data(), MPI_INT8_T, grouped_.data(),
                  counts_.data(), displs_.data(), MPI_INT8_T, MPI_COMM_WORLD);
    back.resize(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) back[i] = grouped_[place_[i]];
    for (int d = 0; d < w_.size; ++d)  // what crosses to other processes
      if (d != w_.rank)
        bytes += std::uint64_t(counts_[d]) * sizeof(std::uint64_t) + std::uint64_t(rcounts_[d]);
  }

  std::uint64_t bytes = 0;  // sent by this process to the others

 private:
  World w_;
  std::vector<int> counts_, displs_, rcounts_, rdispls_;
  std::vector<std::uint32_t> place_;
  std::vector<std::uint64_t> send_, received_;
  std::vector<std::int8_t> answers_, grouped_;
};

std::int8_t load(const std::int8_t& slot) {
  return std::atomic_ref<const std::int8_t>(slot).load(std::memory_order_relaxed);
}
void store_value(std::int8_t& slot, int v) {
  std::atomic_ref<std::int8_t>(slot).store(std::int8_t(v), std::memory_order_relaxed);
}

// The value of `key` (request_key) from this process's slices: level `solving` (in bytes, maybe
// not yet solved: kUnknownValue) or a finished level (packed or not: LevelTables::level).
int local_value(const LevelTables& levels, int solving, std::uint64_t key) {
  const int level = int(key & 0xFF);
  const std::uint64_t local = key >> 8;
  return level == solving ? load(levels.bytes(level)[local]) : levels.level(level).future(local);
}

// Computes this process's slice of level n (levels.bytes(n), opened with kUnknownValue), all
// processes together band by band of equal potential, in increasing potential: an entry's
// successors are then all solved, in this process's slices (read at once) or in others' (asked
// for in batches, MPI_Alltoallv). Returns the number of bands.
template <class R, int M>
class SliceKernel {
 public:
  SliceKernel(World w, const LevelIndex& index, LevelTables& levels,
              const std::vector<Slices>& slices, Exchange& exchange)
      : w_(w), moves_(index), levels_(levels), slices_(slices), exchange_(exchange) {}

  int compute_level(int n, const std::function<void(std::uint64_t)>& progress) {
    n_ = n;
    values_ = levels_.bytes(n).data();
    const std::uint64_t count = slices_[n].count(w_.rank);
    if (count > UINT32_MAX)
      throw InputError("level " + std::to_string(n) + " has " + std::to_string(count) +
                       " entries a process, more than 2^32: run more processes");
    sort_by_potential(count);
    // Every process takes the same number of batches in each band.
    const int bands = int(band_start_.size()) - 1;
    std::vector<std::uint64_t> batches(std::size_t(bands), 0);
    for (int b = 0; b < bands; ++b)
      batches[b] = (band_start_[b + 1] - band_start_[b] + kBatch - 1) / kBatch;
    MPI_Allreduce(MPI_IN_PLACE, batches.data(), bands, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    std::uint64_t done = 0;
    for (int b = 0; b < bands; ++b) {
      const std::uint64_t end = band_start_[b + 1];
      for (std::uint64_t k = 0; k < batches[b]; ++k) {
        const std::uint64_t lo = std::min(end, band_start_[b] + k * kBatch);
        const std::uint64_t hi = std::min(end, lo + kBatch);
        batch(lo, hi);
        done += hi - lo;
      }
      if (progress) progress(done);
    }
    std::vector<std::uint32_t>().swap(order_);
    return bands;
  }

 private:
  using Moves = LevelMoves<R, M>;
  using Ring = typename Moves::Ring;

  struct Remote {
    Request request;
    std::uint32_t place;  // the request's index in the exchange
    std::int8_t gain;
    bool again;
  };

  // order_: the slice's local indices by potential, index order within a potential;
  // band_start_[p]: where potential p starts in order_.
  void sort_by_potential(std::uint64_t count) {
    const int bands = n_ * M + 1;
    const std::uint64_t first = slices_[n_].begin[w_.rank];
    const std::uint64_t chunks = std::min<std::uint64_t>(256, std::max<std::uint64_t>(count, 1));
    std::vector<std::uint64_t> counts(chunks * std::size_t(bands), 0);
    auto chunk_range = [&](std::uint64_t c) {
      return std::pair{count * c / chunks, count * (c + 1) / chunks};
    };
    auto walk = [&](std::uint64_t c, auto&& visit) {
      const auto [lo, hi] = chunk_range(c);
      if (lo == hi) return;
      Stones x[2 * kMaxPits];
      moves_.index().unrank(first + lo, n_, x);
      for (std::uint64_t i = lo;;) {
        visit(i, Moves::potential(x));
        if (++i == hi) break;
        moves_.index().next(x);
      }
    };
    tbb::parallel_for(std::uint64_t(0), chunks, [&](std::uint64_t c) {
      walk(c, [&](std::uint64_t, int p) { ++counts[c * bands + p]; });
    });
    band_start_.assign(std::size_t(bands) + 1, 0);
    for (int p = 0; p < bands; ++p) {
      std::uint64_t at = band_start_[p];
      for (std::uint64_t c = 0; c < chunks; ++c) {
        const std::uint64_t k = counts[c * bands + p];
        counts[c * bands + p] = at;  // where chunk c's entries of potential p go
        at += k;
      }
      band_start_[p + 1] = at;
    }
    order_.resize(count);
    tbb::parallel_for(std::uint64_t(0), chunks, [&](std::uint64_t c) {
      walk(c, [&](std::uint64_t i, int p) { order_[counts[c * bands + p]++] = std::uint32_t(i); });
    });
  }

  // Entries order_[lo, hi) of one band.
  void batch(std::uint64_t lo, std::uint64_t hi) {
    const std::size_t size = std::size_t(hi - lo);
    best_.assign(size, 0);
    remotes_.resize(size * M);
    remote_count_.assign(size, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, 1 << 10),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t j = range.begin(); j != range.end(); ++j)
                          expand(j, order_[lo + j]);
                      });
    requests_.clear();
    for (std::size_t j = 0; j < size; ++j)
      for (int k = 0; k < remote_count_[j]; ++k) {
        Remote& r = remotes_[j * M + k];
        r.place = std::uint32_t(requests_.size());
        requests_.push_back(r.request);
      }
    exchange_.run(requests_, back_, [&](std::uint64_t key) {
      const int v = local_value(levels_, n_, key);
      if (v == kUnknownValue)
        throw std::logic_error("distributed build: asked for an unsolved value");
      return v;
    });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, 1 << 12),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t j = range.begin(); j != range.end(); ++j) {
                          if (remote_count_[j] == 0) continue;
                          int best = best_[j];
                          for (int k = 0; k < remote_count_[j]; ++k) {
                            const Remote& r = remotes_[j * M + k];
                            const int child = back_[r.place];
                            best = std::max(best, r.gain + (r.again ? child : -child));
                          }
                          store_value(values_[order_[lo + j]], best);
                        }
                      });
  }

  // Entry j of the batch, local index `slot`: solved at once when every successor is in this
  // process's slices, else the others asked for.
  void expand(std::size_t j, std::uint64_t slot) {
    Stones x[2 * kMaxPits];
    moves_.index().unrank(slices_[n_].begin[w_.rank] + slot, n_, x);
    const Ring base = Moves::board_of(x);
    int over;
    if (Moves::over(base, &over)) {
      store_value(values_[slot], over);
      return;
    }
    int best = -kMaxTableStones - 1, remote = 0;
    Ring child;
    for (unsigned pits = Moves::movable(base); pits != 0; pits &= pits - 1) {
      const auto played = Moves::play(base, __builtin_ctz(pits), n_, child);
      const int child_n = played.child_n;
      const std::uint64_t r = moves_.rank(child, child_n);
      const Slices& where = slices_[child_n];
      const int owner = where.owner(r);
      const std::uint64_t local = r - where.begin[owner];
      if (owner != w_.rank) {
        remotes_[j * M + remote++] = {{request_key(local, child_n), std::uint64_t(owner)},
                                      0,
                                      std::int8_t(played.gain),
                                      played.again};
        continue;
      }
      const int v = local_value(levels_, n_, request_key(local, child_n));
      if (v == kUnknownValue) throw std::logic_error("distributed build: an unsolved successor");
      best = std::max(best, played.gain + (played.again ? v : -v));
    }
    best_[j] = std::int16_t(best);
    remote_count_[j] = std::uint8_t(remote);
    if (remote == 0) store_value(values_[slot], best);
  }

  World w_;
  Moves moves_;
  LevelTables& levels_;
  const std::vector<Slices>& slices_;
  Exchange& exchange_;
  int n_ = 0;
  std::int8_t* values_ = nullptr;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint64_t> band_start_;
  std::vector<std::uint8_t> remote_count_;
  std::vector<std::int16_t> best_;  // the best of the successors read locally
  std::vector<std::int8_t> back_;
  std::vector<Remote> remotes_;
  std::vector<Request> requests_;
};

// This process's share of level n's stored blocks (storage order, StoreOptions' block size),
// encoded: blocks [first_block, first_block + result.size()).
std::vector<std::string> encode_share(World w, const LevelIndex& index, const StorageOrder& order,
                                      const LevelTables& levels, const Slices& slices, int n,
                                      std::uint32_t block_entries, int zstd_level,
                                      Exchange& exchange, std::uint64_t* first_block) {
  const std::uint64_t entries = index.size(n);
  const std::uint64_t blocks = block_count(entries, block_entries);
  const std::uint64_t lo = blocks * unsigned(w.rank) / unsigned(w.size);
  const std::uint64_t hi = blocks * unsigned(w.rank + 1) / unsigned(w.size);
  *first_block = lo;
  const std::uint64_t per_batch = std::max<std::uint64_t>(1, kBatch / block_entries);
  const std::uint64_t batches = max_over_processes((hi - lo + per_batch - 1) / per_batch);
  std::vector<std::string> out;
  std::vector<std::uint64_t> ranks;
  std::vector<Request> requests;
  std::vector<std::int8_t> values;
  for (std::uint64_t b = 0; b < batches; ++b) {
    const std::uint64_t b0 = std::min(hi, lo + b * per_batch), b1 = std::min(hi, b0 + per_batch);
    const std::uint64_t s0 = b0 * block_entries, s1 = std::min(entries, b1 * block_entries);
    const std::size_t size = std::size_t(s1 - s0);
    ranks.resize(size);
    tbb::parallel_for(b0, b1, [&](std::uint64_t block) {
      const std::uint64_t f = block * block_entries;
      const std::uint64_t c = block_size(entries, block_entries, block);
      index_ranks_of_storage(index, order, n, f,
                             std::span<std::uint64_t>(ranks.data() + (f - s0), std::size_t(c)));
    });
    requests.resize(size);
    for (std::size_t j = 0; j < size; ++j) {
      const int owner = slices.owner(ranks[j]);
      requests[j] = {request_key(ranks[j] - slices.begin[owner], n), std::uint64_t(owner)};
    }
    exchange.run(requests, values, [&](std::uint64_t key) { return local_value(levels, -1, key); });
    const std::size_t before = out.size();
    out.resize(before + std::size_t(b1 - b0));
    tbb::parallel_for(b0, b1, [&](std::uint64_t block) {
      const std::uint64_t f = block * block_entries;
      const std::uint64_t c = block_size(entries, block_entries, block);
      out[before + std::size_t(block - b0)] = encode_block(
          std::span<const std::int8_t>(values.data() + (f - s0), std::size_t(c)), zstd_level);
    });
  }
  return out;
}

// The encoded blocks of every process, in block order, on process 0 (empty elsewhere).
std::vector<std::string> collect_blocks(World w, std::vector<std::string> mine,
                                        std::uint64_t first_block, std::uint64_t* bytes) {
  constexpr int kTag = 7;
  std::vector<std::uint64_t> sizes(mine.size());
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) total += sizes[i] = mine[i].size();
  if (w.rank != 0) {
    const std::uint64_t head[3] = {first_block, mine.size(), total};
    MPI_Send(head, 3, MPI_UINT64_T, 0, kTag, MPI_COMM_WORLD);
    send_bytes(sizes.data(), sizes.size() * sizeof(std::uint64_t), 0, kTag);
    std::string all;
    all.reserve(total);
    for (const std::string& b : mine) all += b;
    send_bytes(all.data(), all.size(), 0, kTag);
    *bytes += 24 + sizes.size() * sizeof(std::uint64_t) + total;
    return {};
  }
  std::vector<std::string> blocks = std::move(mine);
  for (int q = 1; q < w.size; ++q) {
    std::uint64_t head[3];
    MPI_Recv(head, 3, MPI_UINT64_T, q, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (head[0] != blocks.size())
      throw std::runtime_error("distributed build: process " + std::to_string(q) +
                               " sent blocks from " + std::to_string(head[0]) + ", expected " +
                               std::to_string(blocks.size()));
    std::vector<std::uint64_t> theirs(head[1]);
    recv_bytes(theirs.data(), theirs.size() * sizeof(std::uint64_t), q, kTag);
    std::string all(head[2], '\0');
    recv_bytes(all.data(), all.size(), q, kTag);
    std::uint64_t at = 0;
    for (std::uint64_t s : theirs) {
      blocks.emplace_back(all, at, s);
      at += s;
    }
  }
  return blocks;
}

// Test hook (docs/DISTRIBUTED.md, "Faults"): KALAH_TEST_KILL_AT=RANK:LEVEL kills process RANK as
// it starts level LEVEL, as a crashed machine would.
void maybe_killed(World w, int n) {
  const char* spec = std::getenv("KALAH_TEST_KILL_AT");
  if (spec == nullptr) return;
  int rank = -1, level = -1;
  if (std::sscanf(spec, "%d:%d", &rank, &level) == 2 && rank == w.rank && level == n)
    std::raise(SIGKILL);
}

// Throws InputError when a process's share of levels 0..N does not fit its memory: 1/P of the
// packed levels below the top one and of the top level's bytes and potential order (5 bytes an
// entry), plus its batches' buffers; the limit is --memory-limit, else 7/8 of the machine shared
// by its `local` processes.
void check_share_fits(const BuildOptions& o, World w, int local) {
  const TableId t = o.table;
  const std::uint64_t need =
      (build_memory_bytes(t.m, o.max_stones, true) + 4 * level_entries(t.m, o.max_stones)) /
          std::uint64_t(w.size) +
      (std::uint64_t(256) << 20);
  const std::uint64_t have = physical_memory_bytes();
  const std::uint64_t limit =
      o.memory_limit > 0 ? o.memory_limit : (have - have / 8) / std::uint64_t(local);
  if (need <= limit) return;
  const std::string limit_is = o.memory_limit > 0 ? std::string("--memory-limit")
                                                  : "7/8 of this machine's memory shared by its " +
                                                        std::to_string(local) + " processes";
  throw InputError("levels 0.." + std::to_string(o.max_stones) + " of " + to_string(t) +
                   " need about " + std::to_string(need >> 20) + " MiB a process on " +
                   std::to_string(w.size) + " processes; the limit is " +
                   std::to_string(limit >> 20) + " MiB a process (" + limit_is +
                   "): run more processes or machines");
}

}  // namespace

BuildReport build_database_distributed(Store* store, const BuildOptions& o,
                                       const DistributedEvents& events) {
  const auto start = std::chrono::steady_clock::now();
  const World w = world();
  const TableId t = o.table;
  check_build_options(o);
  if (w.size > kMaxProcesses)
    throw InputError("at most " + std::to_string(kMaxProcesses) + " processes, got " +
                     std::to_string(w.size));
  if (w.rank == 0 && store == nullptr)
    throw std::logic_error("build_database_distributed: process 0 needs the store");

  // Process 0 knows the stored levels and the block format; the others learn them.
  std::int64_t shared[3] = {-1, 0, 0};
  if (w.rank == 0) {
    shared[0] = store->complete_through(t);
    shared[1] = store->options().block_entries;
    shared[2] = store->options().zstd_level;
  }
  MPI_Bcast(shared, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
  const int stored = int(shared[0]);
  const auto block_entries = std::uint32_t(shared[1]);
  const int zstd_level = int(shared[2]);

  BuildReport report;
  report.packed = true;
  report.complete_through = std::min(stored, o.max_stones);
  if (stored >= o.max_stones) {
    report.seconds = seconds_since(start);
    return report;
  }
  const int local = processes_on_this_machine();
  check_share_fits(o, w, local);
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  tbb::task_arena arena(o.threads > 0 ? o.threads : std::max(1, cores / local));

  const LevelIndex index(t.m, o.max_stones);
  const StorageOrder order(t.m, o.max_stones);
  LevelTables levels(o.max_stones + 1, /*packing=*/true);
  std::vector<Slices> slices(std::size_t(o.max_stones) + 1);
  for (int n = 0; n <= o.max_stones; ++n) slices[n] = Slices(index.size(n), w.size);

  // Stored levels: process 0 reads each one and sends every process its slice.
  for (int n = 0; n <= stored; ++n) {
    constexpr int kTag = 5;
    const Slices& s = slices[n];
    std::span<std::int8_t> mine = levels.open(n, s.count(w.rank), 0);
    if (w.rank == 0) {
      if (events.loading) events.loading(n, stored);
      std::vector<std::int8_t> all(index.size(n));
      store->read_level(t, n, all);
      for (int q = 1; q < w.size; ++q) send_bytes(all.data() + s.begin[q], s.count(q), q, kTag);
      std::copy(all.begin(), all.begin() + std::ptrdiff_t(s.count(0)), mine.begin());
    } else {
      recv_bytes(mine.data(), mine.size(), 0, kTag);
    }
    levels.pack(n);
  }
  report.first_built = stored + 1;

  Exchange exchange(w);
  for (int n = stored + 1; n <= o.max_stones; ++n) {
    maybe_killed(w, n);
    DistributedLevelStats stats;
    stats.n = n;
    stats.entries = index.size(n);
    const auto level_start = std::chrono::steady_clock::now();
    const std::uint64_t bytes_before = exchange.bytes;
    levels.open(n, slices[n].count(w.rank), kUnknownValue);
    const std::uint64_t slice = slices[n].count(w.rank);
    auto progress = [&](std::uint64_t done) {
      if (w.rank == 0 && events.solving && slice > 0)
        events.solving(n, std::min(stats.entries, done * stats.entries / slice), stats.entries);
    };
    arena.execute([&] {
      with_rules(t.rules, [&](auto r) {
        with_pits(
            t.m,
            [&](auto pits) {
              SliceKernel<decltype(r), decltype(pits)::value> kernel(w, index, levels, slices,
                                                                     exchange);
              stats.bands = kernel.compute_level(n, progress);
            },
            PitsOneTo<kMaxPits>{});
      });
    });
    levels.pack(n);
    stats.solve_s = seconds_since(level_start);
    const std::uint64_t solve_bytes = exchange.bytes - bytes_before;

    const auto store_start = std::chrono::steady_clock::now();
    std::uint64_t first_block = 0, collect_bytes = 0;
    std::vector<std::string> share;
    arena.execute([&] {
      share = encode_share(w, index, order, levels, slices[n], n, block_entries, zstd_level,
                           exchange, &first_block);
    });
    std::vector<std::string> blocks =
        collect_blocks(w, std::move(share), first_block, &collect_bytes);
    if (w.rank == 0) store->write_level_blocks(t, n, std::move(blocks));
    stats.store_s = seconds_since(store_start);

    const std::uint64_t store_bytes = exchange.bytes - bytes_before - solve_bytes + collect_bytes;
    stats.solve_bytes = sum_over_processes(solve_bytes);
    stats.store_bytes = sum_over_processes(store_bytes);
    const std::uint64_t peak = peak_memory_bytes();
    stats.peak_memory_max = max_over_processes(peak);
    stats.peak_memory_sum = sum_over_processes(peak);
    report.complete_through = n;
    report.entries_built += stats.entries;
    if (w.rank == 0 && events.level_done) events.level_done(stats);
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace kalah
