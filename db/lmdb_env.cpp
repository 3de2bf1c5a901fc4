// LMDB environment and transactions with errors reported as one-line DbErrors.
#include "lmdb_env.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "db_error.hpp"

namespace kalah {
namespace {

std::mutex open_mutex;
std::set<std::string>& open_paths() {
  static std::set<std::string> paths;
  return paths;
}

}  // namespace

void throw_lmdb(const std::string& path, const std::string& what, int rc) {
  std::string why = mdb_strerror(rc);
  if (rc == MDB_MAP_FULL) {
    why = "database map full (MDB_MAP_FULL: the LMDB map size is exhausted)";
  } else if (rc == ENOSPC || rc == EDQUOT) {
    why = "disk full (" + why + ")";
  } else if (rc == EIO) {
    // LMDB reports a short write of its pages as EIO: say "disk full" when that is the cause.
    std::error_code ec;
    const auto space = std::filesystem::space(path, ec);
    if (!ec && space.available < (std::uintmax_t(1) << 20))
      why = "disk full (" + why + ", " + std::to_string(space.available) + " bytes free)";
  } else if (rc == MDB_INVALID) {
    why = "not an LMDB database (" + why + ")";
  }
  throw DbError(path + ": " + what + ": " + why);
}

LmdbEnv::LmdbEnv(const std::string& path, bool writable, std::uint64_t map_size)
    : path_(path), writable_(writable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (writable) {
    fs::create_directories(path, ec);
    if (ec) throw DbError(path + ": cannot create database directory: " + ec.message());
  } else if (!fs::is_directory(path, ec)) {
    throw DbError("no database at " + path + " (" +
                  (fs::exists(path, ec) ? "not a directory" : "no such directory") + ")");
  } else if (!fs::exists(fs::path(path) / "data.mdb", ec)) {
    throw DbError("no database at " + path + " (no data.mdb in it)");
  }
  key_ = fs::weakly_canonical(path, ec).string();
  if (ec) key_ = path;
  {
    std::lock_guard lock(open_mutex);
    if (!open_paths().insert(key_).second)
      throw DbError(path + ": database already open in this process");
  }
  int rc = mdb_env_create(&env_);
  if (rc == 0 && writable) rc = mdb_env_set_mapsize(env_, map_size);
  if (rc == 0) rc = mdb_env_set_maxreaders(env_, 1022);
  if (rc == 0) rc = mdb_env_open(env_, path.c_str(), MDB_NOTLS | (writable ? 0 : MDB_RDONLY), 0664);
  MDB_txn* txn = nullptr;
  if (rc == 0) rc = mdb_txn_begin(env_, nullptr, writable ? 0 : MDB_RDONLY, &txn);
  if (rc == 0) rc = mdb_dbi_open(txn, nullptr, 0, &dbi_);
  if (rc == 0) {
    rc = mdb_txn_commit(txn);
    txn = nullptr;
  }
  if (rc != 0) {
    if (txn) mdb_txn_abort(txn);
    if (env_) mdb_env_close(env_);
    env_ = nullptr;
    {
      std::lock_guard lock(open_mutex);
      open_paths().erase(key_);
    }
    if (!writable && (rc == EACCES || rc == ENOENT))
      throw DbError("no database at " + path + " (" + mdb_strerror(rc) + ")");
    throw_lmdb(path, "cannot open the LMDB environment", rc);
  }
}

LmdbEnv::~LmdbEnv() {
  mdb_env_close(env_);
  std::lock_guard lock(open_mutex);
  open_paths().erase(key_);
}

std::uint64_t LmdbEnv::used_bytes() const {
  MDB_envinfo info;
  MDB_stat st;
  if (mdb_env_info(env_, &info) != 0 || mdb_env_stat(env_, &st) != 0) return 0;
  return std::uint64_t(info.me_last_pgno + 1) * st.ms_psize;
}

std::uint64_t LmdbEnv::map_size() const {
  MDB_envinfo info;
  if (mdb_env_info(env_, &info) != 0) return 0;
  return info.me_mapsize;
}

LmdbTxn::LmdbTxn(const LmdbEnv& env, bool write) : env_(env) {
  if (write && !env.writable()) throw DbError(env.path() + ": database opened read-only");
  const int rc = mdb_txn_begin(env.env(), nullptr, write ? 0 : MDB_RDONLY, &txn_);
  if (rc != 0) throw_lmdb(env.path(), "cannot begin a transaction", rc);
}

LmdbTxn::~LmdbTxn() {
  if (txn_) mdb_txn_abort(txn_);
}

std::optional<std::string_view> LmdbTxn::get(std::string_view key) const {
  MDB_val k = to_val(key), v;
  const int rc = mdb_get(txn_, env_.dbi(), &k, &v);
  if (rc == MDB_NOTFOUND) return std::nullopt;
  if (rc != 0) throw_lmdb(env_.path(), "read", rc);
  return from_val(v);
}

void LmdbTxn::put(std::string_view key, std::string_view value) {
  MDB_val k = to_val(key), v = to_val(value);
  const int rc = mdb_put(txn_, env_.dbi(), &k, &v, 0);
  if (rc != 0) throw_lmdb(env_.path(), "write", rc);
}

MDB_cursor* LmdbTxn::open_cursor() const {
  MDB_cursor* cur = nullptr;
  const int rc = mdb_cursor_open(txn_, env_.dbi(), &cur);
  if (rc != 0) throw_lmdb(env_.path(), "cannot open a cursor", rc);
  return cur;
}

std::uint64_t LmdbTxn::erase_prefix(std::string_view prefix) {
  MDB_cursor* cur = open_cursor();
  MDB_val k = to_val(prefix), v;
  std::uint64_t erased = 0;
  int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
  while (rc == 0 && from_val(k).substr(0, prefix.size()) == prefix) {
    rc = mdb_cursor_del(cur, 0);
    if (rc != 0) break;
    ++erased;
    k = to_val(prefix);  // re-seek: plain and independent of cursor state after a delete
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
  }
  mdb_cursor_close(cur);
  if (rc != 0 && rc != MDB_NOTFOUND) throw_lmdb(env_.path(), "write", rc);
  return erased;
}

void LmdbTxn::commit() {
  const int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;  // committed or freed by the failed commit
  if (rc != 0) throw_lmdb(env_.path(), "commit failed, nothing written", rc);
}

}  // namespace kalah
