// open_db_for: read-only store + probe, or a clear reason why not.
#include "db_open.hpp"

#include <filesystem>
#include <iostream>

#include "options.hpp"

namespace kalah::cli {

OpenedDb open_db_for(const std::string& path, bool explicit_path, TableId t,
                     std::size_t cache_bytes, DbLoad load) {
  OpenedDb db;
  if (!explicit_path && !std::filesystem::exists(path)) return db;
  db.store = std::make_unique<Store>(path, false);
  const auto tables = db.store->tables();
  bool found = false;
  std::string held;
  for (const TableId& x : tables) {
    found = found || x == t;
    held += (held.empty() ? "" : ", ") + to_string(x);
  }
  if (!found) {
    const std::string msg = "database " + path + " has no table for " + to_string(t) +
                            " (it holds: " + (held.empty() ? "nothing" : held) + ")";
    if (explicit_path) throw DbError(msg);
    std::cerr << "note: " << msg << "; solving by search alone\n";
    db.store.reset();
    return db;
  }
  const bool resident =
      load == DbLoad::kMemory ||
      (load == DbLoad::kAuto && Probe::resident_bytes(*db.store, t) <= cache_bytes);
  db.probe = std::make_unique<Probe>(*db.store, t, cache_bytes,
                                     resident ? ProbeLoad::kResident : ProbeLoad::kOnDemand);
  return db;
}

void DbLoadOptions::add_to(po::options_description& desc, const char* auto_meaning) {
  desc.add_options()("cache-mb", po::value(&cache_mb)->default_value(cache_mb),
                     "memory for database values in MiB (a 6-pit <= 24 table is 0.73 GiB decoded, "
                     "<= 26 1.58 GiB)")(
      "db-load", po::value(&load)->default_value(load),
      (std::string("auto: ") + auto_meaning +
       "; memory: decode the whole table into memory at once; cache: always the LRU block cache")
          .c_str());
}

DbLoad DbLoadOptions::parsed() const {
  check_range("cache-mb", cache_mb, 1, 1 << 20);
  if (load == "auto") return DbLoad::kAuto;
  if (load == "memory") return DbLoad::kMemory;
  if (load == "cache") return DbLoad::kCache;
  throw InputError("--db-load must be auto, memory or cache, not '" + load + "'");
}

}  // namespace kalah::cli
