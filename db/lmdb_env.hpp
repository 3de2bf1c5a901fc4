// Thin RAII layer over LMDB (one environment, its unnamed main database); errors become DbError.
#pragma once

#include <lmdb.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kalah {

// An open LMDB environment in directory `path`. At most one per path per process (LMDB's locks
// are per process: a second open would break them), enforced with a DbError. Opening checks the
// data file before LMDB trusts it (lmdb_check.hpp): a truncated file or a damaged B-tree is a
// DbError, not a signal.
class LmdbEnv {
 public:
  // Free bytes a writable open needs on the database's disk.
  static constexpr std::uint64_t kLeastFreeToWrite = std::uint64_t(1) << 20;

  // The most processes' read transactions at once (LMDB's reader table).
  static constexpr unsigned kMaxReaders = 1022;

  // writable: creates the directory and environment if absent, with the given map size, and
  // refuses a disk with less than kLeastFreeToWrite free ("disk full"), and a lock file it may
  // not open or create (one line naming lock.mdb, its owner and mode, and what to do).
  // Read-only: the environment must exist; "no database at PATH ..." otherwise. A reader without
  // write access to the lock file (or, when there is none, the directory), or whose lock file
  // the disk has no room for, opens without it (MDB_NOLOCK: nothing then keeps a writer in
  // another process from reusing the pages of this process's snapshots).
  // A lock file an open creates beside another user's data.mdb stays openable by that user:
  // root gives it to data.mdb's owner and group; another user makes it writable by data.mdb's
  // group (0664, when that user and the owner are both members) or else by all (0666).
  // An open with the lock file clears the reader slots of dead processes
  // (clear_stale_readers()).
  LmdbEnv(const std::string& path, bool writable, std::uint64_t map_size);
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;

  MDB_env* env() const { return env_; }
  MDB_dbi dbi() const { return dbi_; }
  const std::string& path() const { return path_; }
  bool writable() const { return writable_; }
  // Bytes of the data file in use (pages up to the last used one).
  std::uint64_t used_bytes() const;
  std::uint64_t map_size() const;
  // Whether this open uses the lock file (not MDB_NOLOCK).
  bool uses_lock_file() const { return locked_; }
  // Frees the reader slots of processes that ended without closing the database (killed): LMDB
  // keeps them until every process has closed it, and while kept they count against
  // kMaxReaders and keep their snapshots' pages from reuse. Returns how many it freed; 0 without
  // the lock file. One pass over the slots; safe from any thread at any time.
  std::size_t clear_stale_readers() const;

 private:
  void open(std::uint64_t map_size);
  void check_structure() const;
  std::string path_, key_;
  bool writable_;
  bool locked_ = false;
  MDB_env* env_ = nullptr;
  MDB_dbi dbi_ = 0;
};

// Throws DbError "PATH: WHAT: REASON" for an LMDB or system error code; map full and disk full
// get a message that says so.
[[noreturn]] void throw_lmdb(const std::string& path, const std::string& what, int rc);

// A transaction; aborted on destruction unless committed. Values returned by get() and passed to
// scan() callbacks point into the map and stay valid until the transaction ends.
class LmdbTxn {
 public:
  LmdbTxn(const LmdbEnv& env, bool write);
  ~LmdbTxn();
  LmdbTxn(const LmdbTxn&) = delete;
  LmdbTxn& operator=(const LmdbTxn&) = delete;

  std::optional<std::string_view> get(std::string_view key) const;
  void put(std::string_view key, std::string_view value);
  // Calls fn(key, value) for every key starting with prefix, in key order, until fn returns false.
  template <class F>
  void scan(std::string_view prefix, F&& fn) const;
  // Deletes every key starting with prefix; returns how many.
  std::uint64_t erase_prefix(std::string_view prefix);
  MDB_txn* txn() const { return txn_; }
  // Commits durably (fsync); throws DbError (the transaction is then gone, nothing written).
  void commit();

 private:
  MDB_cursor* open_cursor() const;
  const LmdbEnv& env_;
  MDB_txn* txn_ = nullptr;
};

inline MDB_val to_val(std::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}
inline std::string_view from_val(const MDB_val& v) {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

template <class F>
void LmdbTxn::scan(std::string_view prefix, F&& fn) const {
  MDB_cursor* cur = open_cursor();
  MDB_val k = to_val(prefix), v;
  int rc = mdb_cursor_get(cur, &k, &v, prefix.empty() ? MDB_FIRST : MDB_SET_RANGE);
  try {
    while (rc == 0) {
      const std::string_view key = from_val(k);
      if (key.substr(0, prefix.size()) != prefix) break;
      if (!fn(key, from_val(v))) break;
      rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
  } catch (...) {
    mdb_cursor_close(cur);
    throw;
  }
  mdb_cursor_close(cur);
  if (rc != 0 && rc != MDB_NOTFOUND) throw_lmdb(env_.path(), "read", rc);
}

}  // namespace kalah
