// The distributed build's units that need no mpirun: the slices of a level, the request keys, the
// grouping of requests by owner, the potential order, the block shares and their encoding, the
// memory check and the fault hook.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "db/block_codec.hpp"
#include "db/storage_order.hpp"
#include "db/store.hpp"
#include "db/table.hpp"
#include "solver/retrograde/build.hpp"
#include "solver/retrograde/mpi/block_share.hpp"
#include "solver/retrograde/mpi/fault_injection.hpp"
#include "solver/retrograde/mpi/memory_check.hpp"
#include "solver/retrograde/mpi/partition.hpp"
#include "solver/retrograde/mpi/potential_order.hpp"
#include "solver/retrograde/mpi/request_groups.hpp"
#include "solver/retrograde/mpi/slice_values.hpp"
#include "tests/support/db_test_util.hpp"
#if KALAH_MPI
#include "solver/mpi/mpi_session.hpp"
#endif

namespace kalah {
namespace {

// Whether `text` contains `part`, naming both when it does not.
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" lacks \"" << part << "\"";
}

// The slices of `total` ranks on `processes` processes against their contract: from 0 to total
// in process order, sizes within one of each other.
void expect_partition(const Slices& s, std::uint64_t total, int processes) {
  const std::string what = std::to_string(total) + " on " + std::to_string(processes);
  ASSERT_EQ(s.processes(), processes) << what;
  EXPECT_EQ(s.begin.front(), 0u) << what;
  EXPECT_EQ(s.begin.back(), total) << what;
  std::uint64_t smallest = UINT64_MAX, largest = 0;
  for (int q = 0; q < processes; ++q) {
    ASSERT_LE(s.begin[q], s.begin[q + 1]) << what;
    smallest = std::min(smallest, s.count(q));
    largest = std::max(largest, s.count(q));
  }
  EXPECT_LE(largest - smallest, 1u) << what;
}

// Every rank of a level lies in exactly one slice, the one owner() names.
TEST(DistributedSlices, EveryRankInExactlyOneSliceOfSizesWithinOne) {
  for (std::uint64_t total : {0u, 1u, 2u, 5u, 7u, 64u, 100u, 1000u, 12345u}) {
    for (int processes = 1; processes <= 9; ++processes) {
      const Slices s(total, processes);
      expect_partition(s, total, processes);
      std::vector<std::uint64_t> held(std::size_t(processes), 0);
      for (std::uint64_t r = 0; r < total; ++r) {
        const int q = s.owner(r);
        ASSERT_TRUE(q >= 0 && q < processes) << r;
        ASSERT_TRUE(s.begin[q] <= r && r < s.begin[q + 1]) << r << " of " << total;
        ++held[q];
      }
      for (int q = 0; q < processes; ++q) EXPECT_EQ(held[q], s.count(q));
    }
  }
}

// Levels too large for total * P in 64 bits (the 128-bit split): owner() is right on both sides
// of every slice boundary.
TEST(DistributedSlices, OwnerOfHugeLevelsAtEveryBoundary) {
  for (std::uint64_t total : {UINT64_MAX, UINT64_MAX / 3 + 7, (std::uint64_t(1) << 63) + 1}) {
    for (int processes : {2, 3, 7, 1000}) {
      const Slices s(total, processes);
      expect_partition(s, total, processes);
      for (int q = 0; q < processes; ++q) {
        ASSERT_EQ(s.owner(s.begin[q]), q) << total << " on " << processes;
        ASSERT_EQ(s.owner(s.begin[q + 1] - 1), q) << total << " on " << processes;
      }
    }
  }
}

// A rank's request names its owner and the owner's local index, which lead back to the rank.
TEST(DistributedSlices, RequestLeadsBackToTheRank) {
  const Slices s(1000, 7);
  for (std::uint64_t r = 0; r < 1000; ++r) {
    const Request req = s.request(r, 9);
    ASSERT_EQ(int(req.owner), s.owner(r));
    EXPECT_EQ(request_level(req.key), 9);
    EXPECT_EQ(s.begin[req.owner] + request_local(req.key), r);
    EXPECT_LT(request_local(req.key), s.count(int(req.owner)));
  }
}

// The largest local index of a slice (2^32 - 1), every level a table may have and every process
// of a job survive a Request's fields.
TEST(DistributedRequests, KeysAndOwnersRoundTripAtTheLimits) {
  for (std::uint64_t local :
       {std::uint64_t(0), std::uint64_t(1), std::uint64_t(123456789), std::uint64_t(UINT32_MAX)}) {
    for (int level : {0, 1, 64, kMaxTableStones, 255}) {
      for (int owner : {0, 1, kMaxProcesses - 1}) {
        const Request req{request_key(local, level), std::uint64_t(owner)};
        EXPECT_EQ(request_local(req.key), local) << local << " " << level << " " << owner;
        EXPECT_EQ(request_level(req.key), level) << local << " " << level << " " << owner;
        EXPECT_EQ(int(req.owner), owner) << local << " " << level << " " << owner;
      }
    }
  }
}

// Grouped requests: each process's keys together, in request order, at its displacement; the
// answers come back in the order of the requests, also when a smaller exchange reuses the
// buffers.
TEST(DistributedRequests, GroupedByOwnerInOrderAndAnsweredInRequestOrder) {
  constexpr int kProcesses = 5;
  RequestGroups groups(kProcesses);
  std::mt19937 rng(7);
  for (std::size_t size : {std::size_t(1000), std::size_t(37), std::size_t(0)}) {
    std::vector<Request> requests(size);
    for (Request& r : requests) {
      const int owner = int(rng() % 4);  // process 4 is asked nothing
      r = {request_key(rng() % 100000, int(rng() % 128)), std::uint64_t(owner)};
    }
    groups.group(requests);
    EXPECT_EQ(groups.counts()[4], 0);
    ASSERT_EQ(groups.keys().size(), size);
    for (int d = 0; d < kProcesses; ++d) {
      std::vector<std::uint64_t> want;
      for (const Request& r : requests)
        if (int(r.owner) == d) want.push_back(r.key);
      ASSERT_EQ(groups.counts()[d], int(want.size())) << d;
      const int before = std::accumulate(groups.counts().begin(), groups.counts().begin() + d, 0);
      ASSERT_EQ(groups.displs()[d], before) << d;
      const auto first = groups.keys().begin() + before;
      EXPECT_TRUE(std::equal(want.begin(), want.end(), first)) << d;
    }
    auto answer = [](std::uint64_t key) { return std::int8_t(key * 0x9E3779B97F4A7C15u >> 57); };
    std::vector<std::int8_t> grouped(size), back;
    for (std::size_t i = 0; i < size; ++i) grouped[i] = answer(groups.keys()[i]);
    groups.ungroup(grouped, back);
    ASSERT_EQ(back.size(), size);
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(back[i], answer(requests[i].key)) << i;
  }
}

// Where each process's part of an MPI_Alltoallv buffer starts: after all those before it.
TEST(DistributedRequests, DisplacementsArePrefixSums) {
  std::vector<int> displs;
  EXPECT_EQ(displacements({3, 0, 5, 1}, displs), 9);
  EXPECT_EQ(displs, (std::vector<int>{0, 3, 3, 8}));
  EXPECT_EQ(displacements({}, displs), 0);
  EXPECT_TRUE(displs.empty());
}

// Every stone's distance to its owner's kalah, from its definition.
int potential_of(const Stones* x, int m) {
  int p = 0;
  for (int i = 0; i < m; ++i) p += (m - i) * (x[i] + x[m + i]);
  return p;
}

// A slice's order: each local index once, bands of one potential each in increasing potential,
// index order within a band; for slices of fewer entries than the sort's 256 chunks, empty ones
// and larger ones.
TEST(DistributedPotentialOrder, SliceSortedByPotentialThenIndex) {
  constexpr int M = 4;
  const int n = 10;
  const LevelIndex index(M, n);
  const std::uint64_t entries = index.size(n);
  for (auto [first, count] : {std::pair<std::uint64_t, std::uint64_t>{0, entries},
                              {entries / 3, entries / 3},
                              {100, 5},
                              {entries - 1, 1},
                              {7, 0}}) {
    PotentialOrder o;
    o.sort<KalahRules, M>(index, n, first, count);
    ASSERT_EQ(o.bands(), n * M + 1);
    ASSERT_EQ(o.band_start.front(), 0u);
    ASSERT_EQ(o.band_start.back(), count);
    ASSERT_EQ(o.order.size(), count);
    std::vector<bool> seen(count, false);
    for (int p = 0; p < o.bands(); ++p) {
      ASSERT_LE(o.band_start[p], o.band_start[p + 1]);
      for (std::uint64_t i = o.band_start[p]; i < o.band_start[p + 1]; ++i) {
        const std::uint32_t local = o.order[i];
        ASSERT_LT(local, count);
        ASSERT_FALSE(seen[local]) << local;
        seen[local] = true;
        if (i > o.band_start[p]) {
          ASSERT_LT(o.order[i - 1], local);
        }
        Stones x[2 * M];
        index.unrank(first + local, n, x);
        ASSERT_EQ(potential_of(x, M), p) << "local " << local;
      }
    }
  }
}

// A slice's values by request key: the level being solved from its bytes, finished levels
// packed.
TEST(DistributedSliceValues, LevelBeingSolvedInBytesFinishedLevelsPacked) {
  LevelTables levels(3, /*packing=*/true);
  for (int n = 0; n <= 2; ++n) {
    std::span<std::int8_t> v = levels.open(n, 10, kUnknownValue);
    for (int i = 0; i < 10; ++i) v[i] = std::int8_t(i % (n + 1) * 2 - n);
    if (n < 2) levels.pack(n);
  }
  store_value(levels.bytes(2)[4], kUnknownValue);
  for (int n = 0; n <= 2; ++n)
    for (int i = 0; i < 10; ++i) {
      const int want = n == 2 && i == 4 ? kUnknownValue : i % (n + 1) * 2 - n;
      EXPECT_EQ(local_value(levels, 2, request_key(i, n)), want) << n << " " << i;
    }
  EXPECT_TRUE(levels.level(1).packed);
  // Once finished, level 2 is read packed (as the storage step reads it: solving none).
  store_value(levels.bytes(2)[4], 4 % 3 * 2 - 2);
  levels.pack(2);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(local_value(levels, -1, request_key(i, 2)), i % 3 * 2 - 2) << i;
}

// The shares of a level's blocks: contiguous, in process order, each block once, sizes within
// one.
TEST(DistributedBlockShare, SharesCoverEveryBlockOnceInProcessOrder) {
  for (std::uint64_t blocks : {0u, 1u, 5u, 16u, 17u, 33u, 1000u}) {
    for (int processes = 1; processes <= 8; ++processes) {
      std::uint64_t at = 0, smallest = UINT64_MAX, largest = 0;
      for (int q = 0; q < processes; ++q) {
        const BlockRange share = block_share(blocks, q, processes);
        ASSERT_EQ(share.first, at) << blocks << " on " << processes << ", process " << q;
        ASSERT_LE(share.first, share.end);
        at = share.end;
        smallest = std::min(smallest, share.size());
        largest = std::max(largest, share.size());
      }
      EXPECT_EQ(at, blocks) << blocks << " on " << processes;
      EXPECT_LE(largest - smallest, 1u) << blocks << " on " << processes;
    }
  }
}

// The blocks a single process stores for level n: its values in storage order (db/FORMAT.md,
// from the definition) cut into blocks of block_entries, each encoded.
std::vector<std::string> single_process_blocks(const LevelIndex& index, int n,
                                               const std::vector<std::int8_t>& values,
                                               std::uint32_t block_entries, int zstd_level) {
  const int m = index.cells() / 2;
  const std::map<std::vector<Stones>, std::uint64_t> storage = test::naive_storage_ranks(m, n);
  std::vector<std::int8_t> stored(values.size());
  std::vector<Stones> x(std::size_t(2 * m));
  for (std::uint64_t r = 0; r < values.size(); ++r) {
    index.unrank(r, n, x.data());
    stored[storage.at(x)] = values[r];
  }
  std::vector<std::string> blocks;
  for (std::uint64_t b = 0; b < block_count(values.size(), block_entries); ++b)
    blocks.push_back(
        encode_block(std::span<const std::int8_t>(stored).subspan(
                         b * block_entries, block_size(values.size(), block_entries, b)),
                     zstd_level));
  return blocks;
}

// Level n's blocks as P processes encode them (each its share, its values asked of the slices
// that hold them in batches, every process taking as many batches as the most any needs), in
// process order.
std::vector<std::string> blocks_on_processes(const LevelIndex& index, int n,
                                             const std::vector<std::int8_t>& values,
                                             std::uint32_t block_entries, int processes,
                                             std::uint64_t blocks_per_batch) {
  const StorageOrder order(index.cells() / 2, n);
  const Slices slices(values.size(), processes);
  const std::uint64_t blocks = block_count(values.size(), block_entries);
  std::vector<ShareEncoder> encoders;
  std::uint64_t batches = 0;
  for (int q = 0; q < processes; ++q) {
    encoders.emplace_back(index, order, slices, n, block_entries, block_share(blocks, q, processes),
                          blocks_per_batch);
    batches = std::max(batches, encoders.back().batches());
  }
  std::vector<std::string> out;
  for (ShareEncoder& encoder : encoders) {
    std::vector<std::int8_t> answers;
    for (std::uint64_t k = 0; k < batches; ++k) {
      answers.clear();
      for (const Request& r : encoder.requests(k)) {
        EXPECT_EQ(request_level(r.key), n);
        EXPECT_LT(request_local(r.key), slices.count(int(r.owner)));
        answers.push_back(values[slices.begin[r.owner] + request_local(r.key)]);
      }
      encoder.encode(k, answers, 1, out);
    }
  }
  return out;
}

// The shares of P processes, concatenated, are the blocks one process stores, byte for byte, and
// the store takes them as the level.
TEST(DistributedBlockShare, SharesOfPProcessesAreTheSingleProcessBlocks) {
  const int m = 4, n = 12;
  const std::uint32_t block_entries = 1000;  // 51 blocks, the last of 388 values
  const LevelIndex index(m, n);
  const std::vector<std::int8_t> values = test::pits_level(index, n);
  const std::vector<std::string> want = single_process_blocks(index, n, values, block_entries, 1);
  ASSERT_EQ(want.size(), 51u);
  for (int processes : {1, 2, 3, 5, 8}) {
    for (std::uint64_t per_batch : {1u, 4u, 64u}) {
      const std::vector<std::string> got =
          blocks_on_processes(index, n, values, block_entries, processes, per_batch);
      ASSERT_EQ(got.size(), want.size()) << processes << " processes, " << per_batch;
      for (std::size_t b = 0; b < want.size(); ++b)
        ASSERT_EQ(got[b], want[b]) << "block " << b << ", " << processes << " processes";
    }
  }
  test::TempDir dir("distributed_share");
  StoreOptions so = test::fast_store();
  so.block_entries = block_entries;
  Store store(dir.str(), true, so);
  const TableId t{Rules::kKalah, m};
  store.write_level_blocks(t, n, blocks_on_processes(index, n, values, block_entries, 3, 4));
  std::vector<std::int8_t> back(values.size());
  store.read_level(t, n, back);
  EXPECT_EQ(back, values);
}

// A process's share: 1/P of the table's levels and order, plus its buffers.
TEST(DistributedMemory, ShareFallsAsOneOverP) {
  const std::uint64_t table = build_memory_bytes(6, 24, true) + 4 * level_entries(6, 24);
  const std::uint64_t buffers = std::uint64_t(256) << 20;
  for (int processes : {1, 2, 3, 8}) {
    EXPECT_EQ(share_memory_bytes(6, 24, processes), table / std::uint64_t(processes) + buffers);
  }
  EXPECT_LT(share_memory_bytes(6, 24, 4), share_memory_bytes(6, 24, 2));
}

// A table too large to count in 64 bits (12 pits, 50 stones: the top level alone is 5.7e18
// entries, 5 bytes each) needs all the memory there is, never a wrapped-around small number.
TEST(DistributedMemory, ShareSaturatesInsteadOfWrapping) {
  EXPECT_EQ(share_memory_bytes(12, 50, 1), UINT64_MAX);
  EXPECT_GE(share_memory_bytes(12, 50, 2), UINT64_MAX / 2);
  EXPECT_GE(share_memory_bytes(12, 50, 1000), UINT64_MAX / 1000);
}

// The share fits up to the limit and not a byte beyond, and the refusal names the table, what a
// process needs, the limit and where it comes from.
TEST(DistributedMemory, ShareFitsItsLimitAndARefusalNamesTheNeed) {
  BuildOptions o;
  o.table = {Rules::kKalah, 6};
  o.max_stones = 24;
  const std::uint64_t need = share_memory_bytes(6, 24, 2);
  o.memory_limit = need;
  EXPECT_NO_THROW(check_share_fits(o, 2, 1, 1));  // --memory-limit, not the machine, counts
  o.memory_limit = need - 1;
  try {
    check_share_fits(o, 2, 1, std::uint64_t(1) << 50);
    FAIL() << "a share over --memory-limit was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "levels 0..24 of " + to_string(o.table)));
    EXPECT_TRUE(contains(
        what, "need about " + std::to_string(need >> 20) + " MiB a process on 2 processes"));
    EXPECT_TRUE(contains(what, "(--memory-limit)"));
    EXPECT_TRUE(contains(what, "run more processes or machines"));
  }

  // Without --memory-limit: 7/8 of the machine, shared by its 3 processes of the job.
  o.memory_limit = 0;
  const std::uint64_t machine = need * 3 / 7 * 8 + 64;  // 7/8 of it over 3: at least need
  EXPECT_NO_THROW(check_share_fits(o, 2, 3, machine));
  try {
    check_share_fits(o, 2, 3, need * 3);  // 7/8 of it over 3 falls short
    FAIL() << "a share over 7/8 of the machine was accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "(7/8 of this machine's memory shared by its 3 processes)"));
  }
}

// KALAH_TEST_KILL_AT=RANK:LEVEL names one process at one level, nothing else.
TEST(DistributedFaults, KillRequestedOnlyForTheNamedProcessAndLevel) {
  EXPECT_TRUE(kill_requested("1:10", 1, 10));
  EXPECT_TRUE(kill_requested("0:0", 0, 0));
  EXPECT_FALSE(kill_requested("1:10", 0, 10));
  EXPECT_FALSE(kill_requested("1:10", 1, 9));
  EXPECT_FALSE(kill_requested("1:10", 1, 11));
  EXPECT_FALSE(kill_requested(nullptr, 1, 10));
  EXPECT_FALSE(kill_requested("", 0, 0));
  EXPECT_FALSE(kill_requested("1", 1, 10));
  EXPECT_FALSE(kill_requested("x:10", 1, 10));
  EXPECT_FALSE(kill_requested("1:", 1, 10));
}

#if KALAH_MPI
// The environment variables of Open MPI's, MPICH's and PMIx's launchers each make `kalah gen`
// distributed; none of them, a single process.
TEST(DistributedLauncher, DetectedByAnyLaunchersVariable) {
  const char* kVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
  std::map<std::string, std::string> saved;
  for (const char* v : kVariables)
    if (const char* value = std::getenv(v)) saved[v] = value;
  for (const char* v : kVariables) unsetenv(v);
  EXPECT_FALSE(started_by_mpi_launcher());
  for (const char* v : kVariables) {
    setenv(v, "2", 1);
    EXPECT_TRUE(started_by_mpi_launcher()) << v;
    unsetenv(v);
  }
  for (const auto& [v, value] : saved) setenv(v.c_str(), value.c_str(), 1);
}
#endif

}  // namespace
}  // namespace kalah
