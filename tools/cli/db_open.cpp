// open_db_for: read-only store + probe, or a clear reason why not.
#include "tools/cli/db_open.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "engine/physical_memory.hpp"
#include "tools/cli/options.hpp"
#include "tools/cli/progress.hpp"

namespace kalah::cli {

std::size_t default_db_memory_bytes() {
  return std::max<std::size_t>(physical_memory_bytes() / 2, std::size_t(256) << 20);
}

std::string book_summary(const BookSize& size) {
  std::string out = with_commas(size.entries) + " positions";
  if (size.unchecked > 0)
    out += ", and " + with_commas(size.unchecked) +
           " entries without checksums (database format 1), not used: kalah solve --book "
           "rewrites them";
  return out;
}

std::string table_load_note(const TableLoadChoice& how, std::size_t memory_bytes) {
  if (!how.by_size || how.load != TableLoad::kCache) return "";
  const auto mib = [](std::uint64_t bytes) {
    return std::to_string((bytes + (1 << 20) - 1) >> 20);
  };
  return "decoded, the table takes " + mib(how.decoded_bytes) + " MiB, more than the " +
         mib(memory_bytes) +
         " MiB allowed for database values: it is read block by block through a cache, far "
         "slower for a search this far beyond it";
}

void require_db(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw DbError("database " + path + " does not exist (kalah gen builds it)");
}

OpenedDb open_db_for(const std::string& path, bool explicit_path, TableId t,
                     std::size_t cache_bytes, TableLoad load, int levels, int reach) {
  OpenedDb db;
  if (!explicit_path && !std::filesystem::exists(path)) return db;
  db.store = std::make_unique<Store>(path, false);
  const auto tables = db.store->tables();
  if (std::find(tables.begin(), tables.end(), t) == tables.end()) {
    const std::string msg = no_table_message(path, t, tables);
    if (explicit_path) throw DbError(msg);
    std::cerr << "note: " << msg << "; solving by search alone\n";
    db.store.reset();
    return db;
  }
  const TableLoadChoice how = resolve_table_load(load, *db.store, t, levels, cache_bytes, reach);
  if (const std::string note = table_load_note(how, cache_bytes); !note.empty())
    std::cerr << "note: " << note << "\n";
  db.probe = std::make_unique<Probe>(*db.store, t, cache_bytes, how.load, 0, levels);
  return db;
}

void DbLoadOptions::add_to(po::options_description& desc) {
  desc.add_options()("cache-mb", po::value(&cache_mb)->default_value(cache_mb),
                     ("memory for database values in MiB; 0: half of this machine's memory (" +
                      std::to_string(default_db_memory_bytes() >> 20) +
                      " MiB here). A 6-pit table decoded: <= 24 stones 0.78 GiB, <= 26 1.68 GiB, "
                      "<= 30 6.87 GiB, <= 32 14.9 GiB")
                         .c_str())(
      "db-load", po::value(&load)->default_value(load),
      ("auto: the LRU block cache until a search reaches " + std::to_string(kDecodeBeyond) +
       " or more stones in pits beyond the table, then the whole table decoded into memory "
       "(once) when it fits --cache-mb; memory: decode the whole table into memory at once; "
       "cache: always the LRU block cache")
          .c_str())(
      "db-max-stones", po::value(&levels),
      "use only the table's levels 0..N (what a smaller table would answer); default: all");
}

TableLoad DbLoadOptions::parsed() const {
  check_memory_mb("cache-mb", cache_mb, 0, 1 << 20);
  if (levels != -1) check_range("db-max-stones", levels, 0, 127);
  return parse_table_load(load);
}

api::Database open_api_database(const std::string& path, bool explicit_path,
                                const DbLoadOptions& load, std::size_t tt_bytes,
                                std::function<void(const std::string&)> note) {
  const TableLoad how = load.parsed();
  api::Options options;
  options.cache_bytes = load.cache_bytes();
  options.load = how == TableLoad::kMemory  ? api::Options::Load::kMemory
                 : how == TableLoad::kCache ? api::Options::Load::kCache
                                            : api::Options::Load::kAuto;
  options.max_stones = load.levels;
  options.note = std::move(note);
  options.tt_bytes = tt_bytes;
  if (!explicit_path && !std::filesystem::exists(path)) return api::Database(std::move(options));
  return api::Database(path, std::move(options));
}

}  // namespace kalah::cli
