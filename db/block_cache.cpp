// BlockCache: shard construction, insertion with byte-bounded LRU eviction, counters.
#include "db/block_cache.hpp"

namespace kalah {

BlockCache::BlockCache(std::size_t capacity_bytes, unsigned shards)
    : shard_count_(shards == 0 ? 1 : shards),
      shard_capacity_(capacity_bytes / shard_count_),
      shards_(new Shard[shard_count_]) {}

void BlockCache::insert(Shard& s, std::uint64_t key, std::vector<std::int8_t>&& values) {
  std::lock_guard lock(s.mu);
  if (s.index.count(key)) return;
  s.bytes += values.size() + kEntryOverhead;
  s.lru.push_front(Entry{key, std::move(values)});
  s.index.emplace(key, s.lru.begin());
  while (s.bytes > shard_capacity_ && s.lru.size() > 1) {
    const Entry& old = s.lru.back();
    s.bytes -= old.values.size() + kEntryOverhead;
    s.index.erase(old.key);
    s.lru.pop_back();
  }
}

std::uint64_t BlockCache::hits() const {
  std::uint64_t n = 0;
  for (unsigned i = 0; i < shard_count_; ++i) n += shards_[i].hits.load(std::memory_order_relaxed);
  return n;
}

std::uint64_t BlockCache::misses() const {
  std::uint64_t n = 0;
  for (unsigned i = 0; i < shard_count_; ++i)
    n += shards_[i].misses.load(std::memory_order_relaxed);
  return n;
}

std::size_t BlockCache::bytes() const {
  std::size_t n = 0;
  for (unsigned i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    n += shards_[i].bytes;
  }
  return n;
}

std::size_t BlockCache::blocks() const {
  std::size_t n = 0;
  for (unsigned i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mu);
    n += shards_[i].lru.size();
  }
  return n;
}

}  // namespace kalah
