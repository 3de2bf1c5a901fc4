// Opening the database named by --db for reading, with the errors and notes users expect.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "db/table_load.hpp"
#include "kalah/kalah.hpp"
#include "tools/cli/options.hpp"

namespace kalah::cli {

// A read-only store and a probe of one of its tables; both null when there is no database to use.
struct OpenedDb {
  std::unique_ptr<Store> store;
  std::unique_ptr<Probe> probe;
};

// "N positions", and the unchecked entries of format version 1 with what rewrites them.
std::string book_summary(const BookSize& size);

// "" unless `how` reads the table block by block because its decoded size is over memory_bytes
// although the work reaches far enough beyond it to decode it: then a note saying so.
std::string table_load_note(const TableLoadChoice& how, std::size_t memory_bytes);

// Opens `path` for table t, held as `load` decides (resolve_table_load) for work reaching `reach`
// stones in pits with cache_bytes of memory. When `explicit_path` (the user gave --db), a missing
// database or a missing table is an error (DbError naming the path and the tables it holds).
// Otherwise it is a note on stderr and the result is empty. levels >= 0: only levels 0..levels
// of the table are used (Probe); -1: all of them.
OpenedDb open_db_for(const std::string& path, bool explicit_path, TableId t,
                     std::size_t cache_bytes = 256u << 20, TableLoad load = TableLoad::kCache,
                     int levels = -1, int reach = 0);

// Throws DbError "database PATH does not exist (kalah gen builds it)" unless something is at path:
// for the commands that need a database and would otherwise create an empty one or fail later.
void require_db(const std::string& path);

// The memory for database values when --cache-mb is 0: half of this machine's memory, at least
// 256 MiB (the transposition table of a solve takes at most a quarter).
std::size_t default_db_memory_bytes();

// --cache-mb, --db-load and --db-max-stones, for the commands that may probe a database at
// length.
struct DbLoadOptions {
  long long cache_mb = 0;  // 0: default_db_memory_bytes()
  std::string load = "auto";
  int levels = -1;  // --db-max-stones; -1: every level of the table
  void add_to(po::options_description& desc);
  // The checked values; throws InputError for a bad one.
  TableLoad parsed() const;
  std::size_t cache_bytes() const {
    return cache_mb > 0 ? std::size_t(cache_mb) << 20 : default_db_memory_bytes();
  }
};

// The database at `path` through the public API, held as `load` says (checked: InputError for a
// bad option), notes to `note`, its analysis cache of tt_bytes (api::Options::tt_bytes). No
// database (search only) when the path is the default one (explicit_path false) and nothing is
// there; api::Error(kDatabase) when it is given and missing.
api::Database open_api_database(const std::string& path, bool explicit_path,
                                const DbLoadOptions& load, std::size_t tt_bytes,
                                std::function<void(const std::string&)> note);

}  // namespace kalah::cli
