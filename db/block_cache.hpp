// Sharded LRU cache of decompressed blocks, bounded by bytes, shared safely by many threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "db/db_error.hpp"

namespace kalah {

// Blocks are keyed by a 64-bit id chosen by the caller. Each shard (a mutex, an LRU list, a hash
// index) owns capacity_bytes / shards; a shard always keeps its most recently used block, so
// the real bound is max(capacity_bytes, shards * largest block).
class BlockCache {
 public:
  explicit BlockCache(std::size_t capacity_bytes, unsigned shards = 32);

  // Value `offset` of block `key`. On a miss calls load(std::vector<std::int8_t>&) outside the
  // shard lock to fill the block; an exception from load propagates and nothing is cached.
  template <class Load>
  std::int8_t get(std::uint64_t key, std::size_t offset, Load&& load);

  std::uint64_t hits() const;
  std::uint64_t misses() const;
  std::size_t bytes() const;   // held now, all shards
  std::size_t blocks() const;  // held now, all shards

 private:
  struct Entry {
    std::uint64_t key;
    std::vector<std::int8_t> values;
  };
  struct alignas(64) Shard {
    mutable std::mutex mu;
    std::list<Entry> lru;  // most recent first
    std::unordered_map<std::uint64_t, std::list<Entry>::iterator> index;
    std::size_t bytes = 0;
    std::atomic<std::uint64_t> hits{0}, misses{0};
  };
  static constexpr std::size_t kEntryOverhead = 96;  // list node + index slot, roughly

  Shard& shard_of(std::uint64_t key) {
    return shards_[((key * 0x9E3779B97F4A7C15ULL) >> 32) % shard_count_];
  }
  // Inserts a freshly loaded block (unless another thread did first) and evicts.
  void insert(Shard& s, std::uint64_t key, std::vector<std::int8_t>&& values);

  unsigned shard_count_;
  std::size_t shard_capacity_;
  std::unique_ptr<Shard[]> shards_;
};

template <class Load>
std::int8_t BlockCache::get(std::uint64_t key, std::size_t offset, Load&& load) {
  Shard& s = shard_of(key);
  {
    std::lock_guard lock(s.mu);
    if (const auto it = s.index.find(key); it != s.index.end()) {
      s.lru.splice(s.lru.begin(), s.lru, it->second);
      s.hits.fetch_add(1, std::memory_order_relaxed);
      if (offset >= it->second->values.size()) throw DbError("block cache: offset beyond block");
      return it->second->values[offset];
    }
  }
  s.misses.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::int8_t> values;
  load(values);
  if (offset >= values.size()) throw DbError("block cache: offset beyond block");
  const std::int8_t v = values[offset];
  insert(s, key, std::move(values));
  return v;
}

}  // namespace kalah
