// A level's stored blocks made by every process: each encodes its share, process 0 collects them.
#include "solver/retrograde/mpi/stored_blocks.hpp"

#include <algorithm>
#include <stdexcept>

#include "db/table.hpp"
#include "solver/mpi/mpi_world.hpp"
#include "solver/retrograde/mpi/block_share.hpp"
#include "solver/retrograde/mpi/slice_values.hpp"

namespace kalah {

std::vector<std::string> encode_share(World w, const LevelIndex& index, const StorageOrder& order,
                                      const LevelTables& levels, const Slices& slices, int n,
                                      std::uint32_t block_entries, int zstd_level,
                                      Exchange& exchange, std::uint64_t* first_block) {
  const BlockRange share = block_share(block_count(index.size(n), block_entries), w.rank, w.size);
  *first_block = share.first;
  ShareEncoder encoder(index, order, slices, n, block_entries, share,
                       std::max<std::uint64_t>(1, kBatch / block_entries));
  const std::uint64_t batches = max_over_processes(encoder.batches());
  std::vector<std::string> out;
  std::vector<std::int8_t> values;
  for (std::uint64_t k = 0; k < batches; ++k) {
    exchange.run(encoder.requests(k), values,
                 [&](std::uint64_t key) { return local_value(levels, -1, key); });
    encoder.encode(k, values, zstd_level, out);
  }
  return out;
}

namespace {

constexpr int kTag = 7;

// This process's blocks to process 0: their first block, count and bytes, their sizes, the bytes.
void send_blocks(const std::vector<std::string>& mine, std::uint64_t first_block,
                 std::uint64_t* bytes) {
  std::vector<std::uint64_t> sizes(mine.size());
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) total += sizes[i] = mine[i].size();
  const std::uint64_t head[3] = {first_block, mine.size(), total};
  send_bytes(head, sizeof head, 0, kTag);
  send_bytes(sizes.data(), sizes.size() * sizeof(std::uint64_t), 0, kTag);
  std::string all;
  all.reserve(total);
  for (const std::string& b : mine) all += b;
  send_bytes(all.data(), all.size(), 0, kTag);
  *bytes += 24 + sizes.size() * sizeof(std::uint64_t) + total;
}

// Process q's blocks (send_blocks) appended to `blocks`, which they must continue.
void receive_blocks(int q, std::vector<std::string>& blocks) {
  std::uint64_t head[3];
  recv_bytes(head, sizeof head, q, kTag);
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

}  // namespace

std::vector<std::string> collect_blocks(World w, std::vector<std::string> mine,
                                        std::uint64_t first_block, std::uint64_t* bytes) {
  if (w.rank != 0) {
    send_blocks(mine, first_block, bytes);
    return {};
  }
  std::vector<std::string> blocks = std::move(mine);
  for (int q = 1; q < w.size; ++q) receive_blocks(q, blocks);
  return blocks;
}

}  // namespace kalah
