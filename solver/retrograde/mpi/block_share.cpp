// A process's share of a level's stored blocks: which blocks, the values they need, their encoding.
#include "solver/retrograde/mpi/block_share.hpp"

#include <algorithm>

#include <tbb/parallel_for.h>

#include "db/block_codec.hpp"
#include "db/store.hpp"
#include "db/table.hpp"

namespace kalah {

BlockRange block_share(std::uint64_t blocks, int q, int processes) {
  return {blocks * unsigned(q) / unsigned(processes),
          blocks * unsigned(q + 1) / unsigned(processes)};
}

ShareEncoder::ShareEncoder(const LevelIndex& index, const StorageOrder& order, const Slices& slices,
                           int n, std::uint32_t block_entries, BlockRange share,
                           std::uint64_t blocks_per_batch)
    : index_(index),
      order_(order),
      slices_(slices),
      n_(n),
      entries_(index.size(n)),
      block_entries_(block_entries),
      share_(share),
      blocks_per_batch_(blocks_per_batch) {}

BlockRange ShareEncoder::batch(std::uint64_t k) const {
  const std::uint64_t first = std::min(share_.end, share_.first + k * blocks_per_batch_);
  return {first, std::min(share_.end, first + blocks_per_batch_)};
}

const std::vector<Request>& ShareEncoder::requests(std::uint64_t k) {
  const BlockRange b = batch(k);
  const std::uint64_t s0 = b.first * block_entries_;
  const std::size_t size =
      b.size() == 0 ? 0 : std::size_t(std::min(entries_, b.end * block_entries_) - s0);
  ranks_.resize(size);
  tbb::parallel_for(b.first, b.end, [&](std::uint64_t block) {
    const std::uint64_t f = block * block_entries_;
    const std::uint64_t c = block_size(entries_, block_entries_, block);
    index_ranks_of_storage(index_, order_, n_, f,
                           std::span<std::uint64_t>(ranks_.data() + (f - s0), std::size_t(c)));
  });
  requests_.resize(size);
  for (std::size_t j = 0; j < size; ++j) requests_[j] = slices_.request(ranks_[j], n_);
  return requests_;
}

void ShareEncoder::encode(std::uint64_t k, std::span<const std::int8_t> values, int zstd_level,
                          std::vector<std::string>& out) const {
  const BlockRange b = batch(k);
  const std::uint64_t s0 = b.first * block_entries_;
  const std::size_t before = out.size();
  out.resize(before + std::size_t(b.size()));
  tbb::parallel_for(b.first, b.end, [&](std::uint64_t block) {
    const std::uint64_t f = block * block_entries_;
    const std::uint64_t c = block_size(entries_, block_entries_, block);
    out[before + std::size_t(block - b.first)] =
        encode_block(values.subspan(std::size_t(f - s0), std::size_t(c)), zstd_level);
  });
}

}  // namespace kalah
