// A process's share of a level's stored blocks: which blocks, the values they need, their encoding.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "db/index.hpp"
#include "db/storage_order.hpp"
#include "solver/retrograde/mpi/partition.hpp"

namespace kalah {

// Blocks [first, end) of a level.
struct BlockRange {
  std::uint64_t first = 0, end = 0;
  std::uint64_t size() const { return end - first; }
};

// Process q's share of a level's `blocks` stored blocks, of `processes`: the shares are
// contiguous, in process order, cover every block once, and differ in size by at most one.
BlockRange block_share(std::uint64_t blocks, int q, int processes);

// A share of level n's stored blocks (storage order, blocks of block_entries values, the last
// holding the rest) encoded in batches of up to blocks_per_batch blocks: the requests for a
// batch's values, to the slices that hold them, then its blocks encoded from the answers. Batches
// past batches() are empty.
class ShareEncoder {
 public:
  ShareEncoder(const LevelIndex& index, const StorageOrder& order, const Slices& slices, int n,
               std::uint32_t block_entries, BlockRange share, std::uint64_t blocks_per_batch);

  std::uint64_t batches() const {
    return (share_.size() + blocks_per_batch_ - 1) / blocks_per_batch_;
  }
  // Batch k's blocks.
  BlockRange batch(std::uint64_t k) const;
  // The requests for batch k's values, one per value in storage order from its first block on.
  const std::vector<Request>& requests(std::uint64_t k);
  // Batch k's blocks encoded (encode_block) from `values`, the answers to requests(k), appended
  // to out.
  void encode(std::uint64_t k, std::span<const std::int8_t> values, int zstd_level,
              std::vector<std::string>& out) const;

 private:
  const LevelIndex& index_;
  const StorageOrder& order_;
  const Slices& slices_;
  int n_;
  std::uint64_t entries_;
  std::uint32_t block_entries_;
  BlockRange share_;
  std::uint64_t blocks_per_batch_;
  std::vector<std::uint64_t> ranks_;
  std::vector<Request> requests_;
};

}  // namespace kalah
