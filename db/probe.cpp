// Probe: rank, block lookup through the cache, book fallback above the levels.
#include "db/probe.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/for_each_index.hpp"

namespace kalah {

int Probe::covered_levels(const Store& store, TableId t, int levels) {
  const auto tables = store.tables();
  if (std::find(tables.begin(), tables.end(), t) == tables.end()) {
    std::string held;
    for (const TableId& h : tables) held += (held.empty() ? "" : ", ") + to_string(h);
    throw DbError(store.path() + ": no table " + to_string(t) + " in the database (it holds " +
                  (held.empty() ? std::string("none") : held) + ")");
  }
  const int through = store.complete_through(t);
  return levels >= 0 ? std::min(through, levels) : through;
}

std::uint64_t Probe::resident_bytes(const Store& store, TableId t, int levels) {
  std::uint64_t words = 0;
  const int through = covered_levels(store, t, levels);
  for (int n = 0; n <= through; ++n)
    words += ResidentLevel::words_for(ResidentLevel::packs(n), level_entries(t.m, n));
  return words * sizeof(std::uint64_t);
}

Probe::Probe(const Store& store, TableId t, std::size_t cache_bytes, TableLoad load,
             unsigned threads, int levels)
    : store_(store),
      table_(t),
      order_(t.m, std::max(covered_levels(store, t, levels), 0)),
      cache_(load == TableLoad::kMemory ? 0 : cache_bytes) {
  if (load == TableLoad::kAuto)
    throw std::invalid_argument("Probe: resolve TableLoad::kAuto first (resolve_table_load)");
  max_stones_ = covered_levels(store, t, levels);
  for (int n = 0; n <= max_stones_; ++n) {
    const auto meta = store.level_meta(t, n);
    if (!meta || !meta->complete)
      throw DbError(store.path() + ": " + to_string(t) + " level " + std::to_string(n) +
                    " vanished while opening the probe");
    store.check_readable(*meta, t, n);
    block_entries_.push_back(meta->block_entries);
  }
  if (load == TableLoad::kMemory) load_resident(threads);
  for (const auto& [pits, margin] : store.book_entries(t))
    book_.emplace(
        std::string(reinterpret_cast<const char*>(pits.data()), pits.size() * sizeof(Stones)),
        margin);
  answers_beyond_ = !book_.empty();
}

void Probe::load_resident(unsigned threads) {
  std::vector<std::uint64_t> offset{0};  // in words
  for (int n = 0; n <= max_stones_; ++n)
    offset.push_back(offset.back() +
                     ResidentLevel::words_for(ResidentLevel::packs(n), level_entries(table_.m, n)));
  // Zeroed (packed words are OR-ed into at block edges) and faulted in by the threads that fill it.
  resident_ = HugeBuffer(offset.back() * sizeof(std::uint64_t), false);
  for (int n = 0; n <= max_stones_; ++n) {
    std::uint64_t* words = resident_.as<std::uint64_t>() + offset[n];
    if (ResidentLevel::packs(n)) {
      const std::string where =
          store_.path() + ": " + to_string(table_) + " level " + std::to_string(n);
      store_.scan_level_parallel(table_, n, threads,
                                 [&](std::uint64_t first, std::span<const std::int8_t> values) {
                                   pack_values(values, first, n, words, where);
                                 });
    } else {
      store_.read_level_stored(
          table_, n,
          std::span<std::int8_t>(reinterpret_cast<std::int8_t*>(words), level_entries(table_.m, n)),
          threads);
    }
    levels_.push_back(ResidentLevel{words, n, ResidentLevel::packs(n)});
  }
}

std::optional<int> Probe::future(const Position& p) {
  if (p.m != table_.m) return std::nullopt;
  const int n = p.pit_stones();
  if (n <= max_stones_) {
    const std::uint64_t rank = order_.rank(p, n);
    if (resident()) return levels_[n].future(rank);
    const std::uint32_t per_block = block_entries_[n];
    const auto block = std::uint32_t(rank / per_block);
    const std::uint64_t key = std::uint64_t(n) << 32 | block;
    return cache_.get(key, std::size_t(rank % per_block), [&](std::vector<std::int8_t>& out) {
      store_.read_block(table_, n, block, out, per_block);
    });
  }
  if (book_.empty()) return std::nullopt;
  Stones pits[2 * kMaxPits];
  for (int i = 0; i < p.m; ++i) {
    pits[i] = p.own_pit(i);
    pits[p.m + i] = p.opp_pit(i);
  }
  const auto it = book_.find(
      std::string(reinterpret_cast<const char*>(pits), std::size_t(2 * p.m) * sizeof(Stones)));
  if (it == book_.end()) return std::nullopt;
  return it->second;
}

}  // namespace kalah
