// The LMDB environment's lock file among users (root, the owner, another user) and reader slots
// left by killed processes.
#include <fcntl.h>
#include <grp.h>
#include <lmdb.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "db/lmdb_env.hpp"
#include "db/store.hpp"
#include "kalah/kalah.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/lmdb_readers.hpp"

namespace kalah {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kOwner = 65534;  // the database's owner when the tests run as root
constexpr uid_t kOther = 65533;  // another user, without a name

// Runs the kalah binary with args as user uid (group uid, no other groups; as this process when
// uid is its own): exit code (-1 when killed) and stderr.
test::CliResult run_kalah_as(uid_t uid, const std::vector<std::string>& args) {
  const std::string err = test::temp_path("err");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_TRUNC);
    const int null = ::open("/dev/null", O_WRONLY);
    if (fd < 0 || null < 0 || ::dup2(fd, 2) < 0 || ::dup2(null, 1) < 0) ::_exit(126);
    if (uid != ::geteuid() &&
        (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0))
      ::_exit(126);
    std::vector<char*> argv{const_cast<char*>(KALAH_BINARY)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(KALAH_BINARY, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  test::CliResult r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = test::slurp(err);
  std::remove(err.c_str());
  return r;
}

std::vector<std::string> gen_args(const std::string& db, int max_stones) {
  return {"gen", "--pits", "3", "--max-stones", std::to_string(max_stones), "--quiet", "--db", db};
}
std::vector<std::string> query_args(const std::string& db) {
  return {"query", "1,1,0,0/1,0,1,0 S", "--rules", "wetherell", "--db", db};
}

uid_t owner_of(const fs::path& file) {
  struct stat st;
  return ::stat(file.c_str(), &st) == 0 ? st.st_uid : uid_t(-1);
}

// A directory `dir/db` holding a database that user `owner` wrote with kalah gen, with no lock
// file left in it, in a directory of owner's of mode dir_mode.
void database_of(uid_t owner, const test::TempDir& dir, mode_t dir_mode, const std::string& db) {
  fs::create_directories(dir.path());
  ASSERT_EQ(::chown(dir.str().c_str(), owner, owner), 0);
  ASSERT_EQ(::chmod(dir.str().c_str(), dir_mode), 0);
  const test::CliResult gen = run_kalah_as(owner, gen_args(db, 3));
  ASSERT_EQ(gen.status, 0) << gen.err;
  ASSERT_EQ(owner_of(fs::path(db) / "data.mdb"), owner);
  fs::remove(fs::path(db) / "lock.mdb");
}

std::string user_name(uid_t uid) {
  const passwd* pw = ::getpwuid(uid);
  return pw ? pw->pw_name : "uid " + std::to_string(uid);
}

TEST(LmdbLockFile, RootReaderLeavesTheOwnersNextWriteWorking) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as the database's owner";
  test::TempDir dir("lock_root");
  const std::string db = (dir.path() / "db").string();
  database_of(kOwner, dir, 0755, db);
  const test::CliResult query = run_kalah_as(0, query_args(db));
  ASSERT_EQ(query.status, 0) << query.err;
  EXPECT_EQ(owner_of(fs::path(db) / "lock.mdb"), kOwner) << "root's reader kept the lock file";
  const test::CliResult gen = run_kalah_as(kOwner, gen_args(db, 4));
  EXPECT_EQ(gen.status, 0) << "the owner's write after root's read: " << gen.err;
}

TEST(LmdbLockFile, AnotherUsersReaderLeavesTheOwnersNextWriteWorking) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as two users";
  test::TempDir dir("lock_other");
  const std::string db = (dir.path() / "db").string();
  database_of(kOwner, dir, 0777, db);
  ASSERT_EQ(::chmod(db.c_str(), 0777), 0);  // another user may create files there
  const test::CliResult query = run_kalah_as(kOther, query_args(db));
  ASSERT_EQ(query.status, 0) << query.err;
  struct stat st;
  ASSERT_EQ(::stat((fs::path(db) / "lock.mdb").c_str(), &st), 0) << "the reader took no slot";
  EXPECT_EQ(st.st_uid, kOther);
  const test::CliResult gen = run_kalah_as(kOwner, gen_args(db, 4));
  EXPECT_EQ(gen.status, 0) << "the owner's write after another user's read (lock file mode "
                           << std::oct << (st.st_mode & 0777) << "): " << gen.err;
}

// A lock file its writer may not open: one line naming it, its owner and mode and what to do;
// readers still answer (without it). As root the writer is the database's owner and the lock
// file root's (as an older kalah left it); else the lock file is the writer's own, mode 0444.
TEST(LmdbLockFile, AWriterThatCannotOpenTheLockFileSaysWhyInOneLine) {
  const bool root = ::geteuid() == 0;
  const uid_t writer = root ? kOwner : ::geteuid();
  test::TempDir dir("lock_denied");
  const std::string db = (dir.path() / "db").string();
  if (root) {
    database_of(kOwner, dir, 0755, db);
  } else {
    const test::CliResult gen = run_kalah_as(writer, gen_args(db, 3));
    ASSERT_EQ(gen.status, 0) << gen.err;
  }
  const fs::path lock = fs::path(db) / "lock.mdb";
  fs::remove(lock);
  const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const mode_t mode = root ? 0644 : 0444;
  ASSERT_EQ(::chmod(lock.c_str(), mode), 0);

  const test::CliResult gen = run_kalah_as(writer, gen_args(db, 4));
  EXPECT_EQ(gen.status, 1);
  EXPECT_EQ(test::count_lines(gen.err), 1) << gen.err;
  const std::string mend =
      root ? "remove it while no process has the database open, or chown it to you (" +
                 user_name(writer) + ")"
           : "chmod u+rw it";
  for (const std::string& part :
       {lock.string(), "owner " + user_name(::geteuid()),
        std::string(root ? "mode 0644" : "mode 0444"), std::string("Permission denied"), mend})
    EXPECT_TRUE(test::contains(gen.err, part)) << "no '" << part << "' in: " << gen.err;
  const test::CliResult query = run_kalah_as(writer, query_args(db));
  EXPECT_EQ(query.status, 0) << query.err;
}

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

int count_of(const std::vector<pid_t>& listed, const std::vector<pid_t>& pids) {
  int n = 0;
  for (pid_t pid : pids) n += int(std::count(listed.begin(), listed.end(), pid));
  return n;
}

// Each test keeps a process holding the database open, as a long-running reader would: LMDB
// empties the reader table when a process opens the database while no other has it open.
TEST(LmdbReaders, ClearStaleReadersFreesTheSlotsOfKilledReaders) {
  test::TempDir dir("stale_readers");
  test::small_database(dir.str());
  const std::vector<pid_t> holder = test::start_readers(dir.str(), 1, false);
  {
    const LmdbEnv env(dir.str(), false, 0);
    ASSERT_TRUE(env.uses_lock_file());
    const std::vector<pid_t> killed = test::start_readers(dir.str(), 3, true);
    test::kill_all(killed);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 3) << "the killed readers' slots";
    EXPECT_EQ(env.clear_stale_readers(), 3u);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 0);
    EXPECT_EQ(env.clear_stale_readers(), 0u);
  }
  {
    const api::Database db(dir.str());
    test::kill_all(test::start_readers(dir.str(), 2, true));
    EXPECT_EQ(db.clear_stale_readers(), 2u);
    EXPECT_EQ(db.clear_stale_readers(), 0u);
  }
  EXPECT_EQ(api::Database().clear_stale_readers(), 0u) << "without a database";
  test::kill_all(holder);
}

TEST(LmdbReaders, AnOpenFreesTheSlotsOfKilledReaders) {
  test::TempDir dir("stale_open");
  test::small_database(dir.str());
  const std::vector<pid_t> holder = test::start_readers(dir.str(), 1, false);
  for (const bool writable : {false, true}) {
    const std::vector<pid_t> killed = test::start_readers(dir.str(), 3, true);
    test::kill_all(killed);
    const LmdbEnv env(dir.str(), writable, std::uint64_t(1) << 30);
    EXPECT_EQ(count_of(reader_pids(env.env()), killed), 0) << "writable " << writable;
  }
  test::kill_all(holder);
}

}  // namespace
}  // namespace kalah
