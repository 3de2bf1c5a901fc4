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

DbLoad parse_db_load(const std::string& s) {
  if (s == "auto") return DbLoad::kAuto;
  if (s == "memory") return DbLoad::kMemory;
  if (s == "cache") return DbLoad::kCache;
  throw InputError("--db-load must be auto, memory or cache, not '" + s + "'");
}

}  // namespace kalah::cli
