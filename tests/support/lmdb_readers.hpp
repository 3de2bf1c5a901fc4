// Test helpers for LMDB reader slots: a small database, reader processes that hold a slot, and
// their killing (which leaves the slots stale).
#pragma once

#include <lmdb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "db/lmdb_env.hpp"
#include "db/store.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah::test {

// Processes that open the database at path read-only (plain LMDB, with the lock file) and, when
// `read` is true, begin a read transaction, then wait to be killed.
inline std::vector<pid_t> start_readers(const std::string& path, int count, bool read) {
  int ready[2];
  EXPECT_EQ(::pipe(ready), 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      MDB_env* env = nullptr;
      MDB_txn* txn = nullptr;
      const bool ok = mdb_env_create(&env) == 0 &&
                      mdb_env_set_maxreaders(env, LmdbEnv::kMaxReaders) == 0 &&
                      mdb_env_open(env, path.c_str(), MDB_RDONLY | MDB_NOTLS, 0664) == 0 &&
                      (!read || mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn) == 0);
      const char byte = ok ? 1 : 0;
      if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
      for (;;) ::pause();
    }
    pids.push_back(pid);
  }
  for (int i = 0; i < count; ++i) {
    char byte = 0;
    EXPECT_EQ(::read(ready[0], &byte, 1), 1);
    EXPECT_EQ(byte, 1) << "a reader could not open the database";
  }
  ::close(ready[0]);
  ::close(ready[1]);
  return pids;
}

inline void kill_all(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

// A database at `path` holding one book entry.
inline void small_database(const std::string& path) {
  Store store(path, true, fast_store());
  store.put_book({Rules::kWetherell, 3}, {{{1, 0, 2, 0, 1, 0}, 2}});
}

}  // namespace kalah::test
