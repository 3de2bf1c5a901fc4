// The LMDB environment's reader slots left by killed processes.
#include <lmdb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "db/lmdb_env.hpp"
#include "db/store.hpp"
#include "db_test_util.hpp"
#include "kalah/kalah.hpp"

namespace kalah {
namespace {

// Pids of the reader table of env's lock file.
std::vector<pid_t> reader_pids(MDB_env* env) {
  std::vector<pid_t> pids;
  mdb_reader_list(
      env,
      [](const char* line, void* out) {
        int pid = 0;
        if (std::sscanf(line, "%d", &pid) == 1)
          static_cast<std::vector<pid_t>*>(out)->push_back(pid_t(pid));
        return 0;
      },
      &pids);
  return pids;
}

// Processes that open the database at path read-only (plain LMDB, with the lock file) and, when
// `read` is true, begin a read transaction, then wait to be killed.
std::vector<pid_t> start_readers(const std::string& path, int count, bool read) {
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

void kill_all(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

int count_of(const std::vector<pid_t>& listed, const std::vector<pid_t>& pids) {
  int n = 0;
  for (pid_t pid : pids) n += int(std::count(listed.begin(), listed.end(), pid));
  return n;
}

void small_database(const std::string& path) {
  Store store(path, true, test::fast_store());
  store.put_book({Rules::kWetherell, 3}, {{{1, 0, 2, 0, 1, 0}, 2}});
}

// Each test keeps a process holding the database open, as a long-running reader would: LMDB
// empties the reader table when a process opens the database while no other has it open.
TEST(LmdbReaders, ClearStaleReadersFreesTheSlotsOfKilledReaders) {
  test::TempDir dir("stale_readers");
  small_database(dir.str());
  const std::vector<pid_t> holder = start_readers(dir.str(), 1, false);
  {
    const LmdbEnv env(dir.str(), false, 0);
    ASSERT_TRUE(env.uses_lock_file());
    const std::vector<pid_t> killed = start_readers(dir.str(), 3, true);
    kill_all(killed);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 3) << "the killed readers' slots";
    EXPECT_EQ(env.clear_stale_readers(), 3u);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 0);
    EXPECT_EQ(env.clear_stale_readers(), 0u);
  }
  {
    const api::Database db(dir.str());
    kill_all(start_readers(dir.str(), 2, true));
    EXPECT_EQ(db.clear_stale_readers(), 2u);
    EXPECT_EQ(db.clear_stale_readers(), 0u);
  }
  EXPECT_EQ(api::Database().clear_stale_readers(), 0u) << "without a database";
  kill_all(holder);
}

TEST(LmdbReaders, AnOpenFreesTheSlotsOfKilledReaders) {
  test::TempDir dir("stale_open");
  small_database(dir.str());
  const std::vector<pid_t> holder = start_readers(dir.str(), 1, false);
  for (const bool writable : {false, true}) {
    const std::vector<pid_t> killed = start_readers(dir.str(), 3, true);
    kill_all(killed);
    const LmdbEnv env(dir.str(), writable, std::uint64_t(1) << 30);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 0) << "writable " << writable;
  }
  kill_all(holder);
}

}  // namespace
}  // namespace kalah
