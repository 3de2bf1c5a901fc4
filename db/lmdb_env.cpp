// LMDB environment and transactions with errors reported as one-line DbErrors.
#include "db/lmdb_env.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <set>
#include <vector>

#include "db/db_error.hpp"
#include "db/lmdb_check.hpp"

namespace kalah {
namespace {

std::mutex open_mutex;
std::set<std::string>& open_paths() {
  static std::set<std::string> paths;
  return paths;
}

// The nearest existing directory at or above `path`.
std::filesystem::path existing_ancestor(std::filesystem::path path) {
  std::error_code ec;
  path = std::filesystem::absolute(path, ec);
  while (!std::filesystem::exists(path, ec) && path.has_relative_path()) path = path.parent_path();
  return path;
}

std::uintmax_t free_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  const auto space = std::filesystem::space(existing_ancestor(path), ec);
  return ec ? std::numeric_limits<std::uintmax_t>::max() : space.available;
}

void require_free_space(const std::string& path) {
  const std::uintmax_t free = free_bytes(path);
  if (free < LmdbEnv::kLeastFreeToWrite)
    throw DbError(path + ": disk full (" + std::to_string(free) +
                  " bytes free; writing needs at least " +
                  std::to_string(LmdbEnv::kLeastFreeToWrite) + ")");
}

// Whether this process may do `how` (R_OK, W_OK, ...) to `file`, as its effective ids.
bool may(const std::string& file, int how) {
  return ::faccessat(AT_FDCWD, file.c_str(), how, AT_EACCESS) == 0;
}

// "alice", or "uid 1001" for a user without a name.
std::string user_name(uid_t uid) {
  std::vector<char> buf(16384);
  passwd pw, *found = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return found->pw_name;
  return "uid " + std::to_string(uid);
}

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
  return text;
}

// Whether this process is a member of group gid.
bool in_group(gid_t gid) {
  if (::getegid() == gid) return true;
  const int n = ::getgroups(0, nullptr);
  std::vector<gid_t> groups(std::size_t(std::max(n, 0)));
  if (n <= 0 || ::getgroups(n, groups.data()) != n) return false;
  return std::find(groups.begin(), groups.end(), gid) != groups.end();
}

// Whether user uid is a member of group gid (its primary group, or listed in the group's
// members); false when the user has no entry.
bool user_in_group(uid_t uid, gid_t gid) {
  std::vector<char> buf(16384);
  passwd pw, *found = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return false;
  int n = 64;
  std::vector<gid_t> groups(64);
  if (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) {
    groups.resize(std::size_t(n));
    if (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &n) < 0) return false;
  }
  groups.resize(std::size_t(n));
  return std::find(groups.begin(), groups.end(), gid) != groups.end();
}

// Why this process cannot open (or, when there is none, create) the lock file of the database at
// path: one line naming the file, its owner and mode and what to do; "" when it can.
std::string lock_file_trouble(const std::string& path) {
  const std::string lock = (std::filesystem::path(path) / "lock.mdb").string();
  const std::string you = user_name(::geteuid());
  struct stat st;
  if (::stat(lock.c_str(), &st) == 0) {
    if (may(lock, R_OK | W_OK)) return "";
    const int err = errno;
    const std::string mend = st.st_uid == ::geteuid()
                                 ? "chmod u+rw it"
                                 : "remove it while no process has the database open, or chown "
                                   "it to you (" +
                                       you + ")";
    return path + ": cannot open the lock file " + lock + " (owner " + user_name(st.st_uid) +
           ", mode " + mode_text(st.st_mode) + "): " + std::strerror(err) + "; " + mend;
  }
  if (::stat(path.c_str(), &st) != 0 || may(path, W_OK | X_OK)) return "";
  const int err = errno;
  return path + ": cannot create the lock file " + lock + " in a directory of owner " +
         user_name(st.st_uid) + ", mode " + mode_text(st.st_mode) + ": " + std::strerror(err) +
         "; make the directory writable to you (" + you + ") or have its owner open the database";
}

// Whether a reader may use the lock file: it can write it (or create it in the directory), and
// its pages are on disk or the disk has room for them (LMDB maps the lock file: a page the disk
// cannot hold is a SIGBUS). A shipped table in a read-only directory, or on a full disk, is
// opened without it.
bool lock_file_usable(const std::string& path) {
  const std::filesystem::path lock_file = std::filesystem::path(path) / "lock.mdb";
  struct stat st;
  const bool exists = ::stat(lock_file.c_str(), &st) == 0;
  if (!may(exists ? lock_file.string() : path, W_OK)) return false;
  const bool allocated =
      exists && st.st_size > 0 && std::uintmax_t(st.st_blocks) * 512 >= std::uintmax_t(st.st_size);
  return allocated || free_bytes(path) >= LmdbEnv::kLeastFreeToWrite;
}

// Creates the lock file of the database at path, when there is none and data.mdb belongs to
// another user, so that data.mdb's owner can still open it for writing: root gives it to
// data.mdb's owner and group; another user makes it writable by data.mdb's group (mode 0664,
// when both that user and the owner are members) or else by all (0666). LMDB then opens it as it
// is. Returns 0 when the file is so made, was there, or need not be made; else the errno of the
// failure, leaving no file.
int make_lock_file_for_owner(const std::string& path) {
  const std::string lock = (std::filesystem::path(path) / "lock.mdb").string();
  const std::string data = (std::filesystem::path(path) / "data.mdb").string();
  struct stat st;
  if (::stat(data.c_str(), &st) != 0 || st.st_uid == ::geteuid()) return 0;
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0664);
  if (fd < 0) return errno == EEXIST ? 0 : errno;  // EEXIST: another process made it first
  int err = 0;
  if (::geteuid() == 0) {
    if (::fchown(fd, st.st_uid, st.st_gid) != 0) err = errno;
  } else {
    const bool shared_group = in_group(st.st_gid) && user_in_group(st.st_uid, st.st_gid) &&
                              ::fchown(fd, uid_t(-1), st.st_gid) == 0;
    if (::fchmod(fd, shared_group ? 0664 : 0666) != 0) err = errno;
  }
  ::close(fd);
  if (err != 0) ::unlink(lock.c_str());
  return err;
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
    require_free_space(path);
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
  try {
    open(map_size);
  } catch (...) {
    if (env_) mdb_env_close(env_);
    env_ = nullptr;
    std::lock_guard lock(open_mutex);
    open_paths().erase(key_);
    throw;
  }
}

void LmdbEnv::open(std::uint64_t map_size) {
  namespace fs = std::filesystem;
  const std::string& path = path_;
  std::error_code ec;
  const fs::path data = fs::path(path) / "data.mdb";
  if (fs::exists(data, ec) && check_lmdb_meta(path).empty && !writable_)
    throw DbError("no database at " + path + " (data.mdb is empty)");
  unsigned flags = MDB_NOTLS | (writable_ ? 0 : MDB_RDONLY);
  if (writable_) {
    if (const std::string trouble = lock_file_trouble(path); !trouble.empty())
      throw DbError(trouble);
    if (const int err = make_lock_file_for_owner(path); err != 0)
      throw DbError(path + ": cannot create the lock file " +
                    (fs::path(path) / "lock.mdb").string() +
                    " for data.mdb's owner: " + std::strerror(err));
  } else if (!lock_file_usable(path) || make_lock_file_for_owner(path) != 0) {
    flags |= MDB_NOLOCK;
  }
  locked_ = (flags & MDB_NOLOCK) == 0;
  int rc = mdb_env_create(&env_);
  if (rc == 0 && writable_) rc = mdb_env_set_mapsize(env_, map_size);
  if (rc == 0) rc = mdb_env_set_maxreaders(env_, kMaxReaders);
  if (rc == 0) rc = mdb_env_open(env_, path.c_str(), flags, 0664);
  int dead = 0;
  if (rc == 0 && locked_) rc = mdb_reader_check(env_, &dead);
  MDB_txn* txn = nullptr;
  if (rc == 0) rc = mdb_txn_begin(env_, nullptr, writable_ ? 0 : MDB_RDONLY, &txn);
  if (rc == 0) rc = mdb_dbi_open(txn, nullptr, 0, &dbi_);
  if (rc == 0) {
    rc = mdb_txn_commit(txn);
    txn = nullptr;
  }
  if (rc != 0) {
    if (txn) mdb_txn_abort(txn);
    if (locked_ && (rc == EACCES || rc == EPERM))
      if (const std::string trouble = lock_file_trouble(path); !trouble.empty())
        throw DbError(trouble);
    if (!writable_ && (rc == EACCES || rc == ENOENT))
      throw DbError("no database at " + path + " (" + mdb_strerror(rc) + ")");
    throw_lmdb(path, "cannot open the LMDB environment", rc);
  }
  check_structure();
}

void LmdbEnv::check_structure() const {
  // A writer may replace the meta page of a snapshot newer than ours while we read it: then the
  // check runs again on a newer snapshot.
  for (int attempt = 0;; ++attempt) {
    LmdbTxn txn(*this, false);
    if (check_lmdb_tree(path_, mdb_txn_id(txn.txn()), writable_)) return;
    if (attempt == 8) throw DbError(path_ + ": the database changed too often to be checked");
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

std::size_t LmdbEnv::clear_stale_readers() const {
  if (!locked_) return 0;
  int dead = 0;
  const int rc = mdb_reader_check(env_, &dead);
  if (rc != 0) throw_lmdb(path_, "cannot check the reader table", rc);
  return std::size_t(dead);
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
