// The opening book: built through the solver, answers its positions instantly, and is checked.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "solver/answers/book.hpp"
#include "solver/answers/book_keep.hpp"
#include "solver/answers/query.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

TEST(Book, StartPositionsAnsweredFromTheBookMatchTheSolver) {
  for (Rules rules : test::registered_rules()) {
    const TableId t{rules, 4};
    const Position start = start_position(4, 2);
    test::TempDir dir("book");
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {t, 6, 2});
    BookReport rep;
    {
      Probe probe(store, t, 1 << 20);
      rep = build_book(rules, store, probe, start, 2, {});
    }
    EXPECT_GT(rep.stored, 3);
    EXPECT_EQ(rep.unsolved, 0);
    EXPECT_EQ(std::uint64_t(rep.stored), store.book_size(t).entries);

    Probe probe(store, t, 1 << 20);
    EXPECT_TRUE(probe.answers_beyond());
    const SolveResult plain = solve(rules, start, {});
    ASSERT_TRUE(plain.complete);
    EXPECT_EQ(probe.margin(start), plain.margin) << rules_name(rules);
    // Every move of the start leads into the book or the levels: no search needed.
    const QueryAnswer a = query_position(rules, start, &probe);
    EXPECT_FALSE(a.used_solver);
    EXPECT_EQ(a.value.lower, plain.margin);

    const BookCheck ok = verify_book(rules, store, probe, 0);
    EXPECT_EQ(ok.entries, std::uint64_t(rep.stored));
    EXPECT_EQ(ok.checked, ok.entries);
    EXPECT_EQ(ok.wrong, 0u);
  }
}

TEST(Book, AWrongEntryIsFoundByTheCheck) {
  const TableId t{Rules::kWetherell, 3};
  const Position start = start_position(3, 3);
  test::TempDir dir("book_bad");
  Store store(dir.str(), true, test::fast_store());
  build_database(store, {t, 5, 2});
  {
    Probe probe(store, t, 1 << 20);
    build_book(t.rules, store, probe, start, 1, {});
  }
  auto entries = store.book_entries(t);
  ASSERT_FALSE(entries.empty());
  entries[0].second += 2;  // margins keep their parity: an off-by-two value
  store.put_book(t, {entries[0]});
  Probe probe(store, t, 1 << 20);
  const BookCheck c = verify_book(t.rules, store, probe, 0);
  EXPECT_EQ(c.wrong, 1u);
  ASSERT_EQ(c.examples.size(), 1u);
}

// A book whose store fails (here: the store is read-only) keeps its solved positions in the keep
// file; the next run takes them from there without solving, stores them and removes the file.
TEST(Book, AFailedStoreKeepsTheSolvedPositionsForTheNextRun) {
  const TableId t{Rules::kKalah, 4};
  const Position start = start_position(4, 2);
  test::TempDir dir("book_keep");
  {
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {t, 6, 2});
  }
  const std::string keep = book_keep_path(dir.str(), t.rules, start, 2);
  BookReport first;
  {
    Store store(dir.str(), false);
    Probe probe(store, t, 1 << 20);
    try {
      build_book(t.rules, store, probe, start, 2, {}, {}, {}, keep);
      ADD_FAILURE() << "a read-only store took the book";
    } catch (const DbError& e) {
      EXPECT_TRUE(test::contains(e.what(), "run the same command again: the ")) << e.what();
      EXPECT_TRUE(test::contains(e.what(), " solved positions are kept in " + keep)) << e.what();
    }
  }
  ASSERT_TRUE(std::filesystem::exists(keep));
  Store store(dir.str(), true, test::fast_store());
  Probe probe(store, t, 1 << 20);
  const BookReport again = build_book(t.rules, store, probe, start, 2, {}, {}, {}, keep);
  EXPECT_GT(again.stored, 3);
  EXPECT_EQ(again.reused, again.stored);
  EXPECT_EQ(again.nodes, 0u) << "the next run solved again";
  EXPECT_EQ(std::uint64_t(again.stored), store.book_size(t).entries);
  EXPECT_FALSE(std::filesystem::exists(keep));
  EXPECT_EQ(verify_book(t.rules, store, probe, 0).wrong, 0u);
}

// The keep file's entries after a torn one are not read; a file of another run is refused; a
// second open of the same run is refused while the first holds it.
TEST(Book, TheKeepFileReadsOnlyWholeEntriesOfItsOwnRun) {
  test::TempDir dir("book_keep_file");
  std::filesystem::create_directories(dir.path());
  const Position root = start_position(3, 2);
  const std::string path = book_keep_path(dir.str(), Rules::kKalah, root, 2);
  {
    BookKeep keep(path, Rules::kKalah, root, 2, 3);
    EXPECT_TRUE(keep.keep({1, 2, 3, 4, 5, 6}, -7));
    EXPECT_TRUE(keep.keep({2, 2, 3, 4, 5, 6}, 300));
    EXPECT_THROW(BookKeep(path, Rules::kKalah, root, 2, 3), DbError);
  }
  {
    BookKeep keep(path, Rules::kKalah, root, 2, 3);
    EXPECT_EQ(keep.size(), 2);
    EXPECT_EQ(keep.find({1, 2, 3, 4, 5, 6}), -7);
    EXPECT_EQ(keep.find({2, 2, 3, 4, 5, 6}), 300);
    EXPECT_EQ(keep.find({3, 2, 3, 4, 5, 6}), std::nullopt);
    EXPECT_TRUE(keep.keep({3, 2, 3, 4, 5, 6}, 0));
    EXPECT_FALSE(keep.keep({4, 2, 3, 4, 5, 6}, 0)) << "beyond its room";
  }
  {  // the second entry torn: it and the third are not read
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(32 + 24 + 20);
    f.put('\x55');
  }
  {
    BookKeep keep(path, Rules::kKalah, root, 2, 3);
    EXPECT_EQ(keep.size(), 1);
    EXPECT_EQ(keep.find({3, 2, 3, 4, 5, 6}), std::nullopt);
  }
  EXPECT_THROW(BookKeep(path, Rules::kWetherell, root, 2, 3), DbError);
  EXPECT_THROW(BookKeep(path, Rules::kKalah, root, 3, 3), DbError);
}

// A tmpfs of 4 MiB mounted at a new directory for the test's life (root only).
class SmallDisk {
 public:
  explicit SmallDisk(const std::filesystem::path& at) : at_(at) {
    std::filesystem::create_directories(at_);
    mounted_ = ::mount("tmpfs", at_.c_str(), "tmpfs", 0, "size=4m") == 0;
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(at_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  // Writes zeros to a file on it until the disk is full.
  void fill() const {
    std::ofstream out(at_ / "fill", std::ios::binary);
    const std::string zeros(1 << 16, '\0');
    for (int i = 0; i < 128 && out.write(zeros.data(), zeros.size()); ++i) {
    }
  }
  void empty() const { std::filesystem::remove(at_ / "fill"); }

 private:
  std::filesystem::path at_;
  bool mounted_ = false;
};

// `kalah solve --book` whose disk fills while it solves fails at its commit with one line naming
// what is kept, and the same command run again after freeing space stores without solving.
TEST(Book, ADiskThatFillsDuringTheSolvesLosesNoSolvedPosition) {
  test::TempDir dir("book_full_disk");
  const SmallDisk disk(dir.path());
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  const TableId t{Rules::kKalah, 4};
  const Position start = start_position(4, 2);
  const std::string db = (dir.path() / "db").string();
  {  // the table copied compacted: no page free, so the book's transaction grows the file
    test::TempDir built("book_full_disk_table");
    {
      Store store(built.str(), true, test::fast_store());
      build_database(store, {t, 6, 2});
    }
    std::filesystem::create_directories(db);
    MDB_env* env = nullptr;
    ASSERT_EQ(mdb_env_create(&env), 0);
    ASSERT_EQ(mdb_env_open(env, built.str().c_str(), MDB_RDONLY, 0664), 0);
    EXPECT_EQ(mdb_env_copy2(env, db.c_str(), MDB_CP_COMPACT), 0);
    mdb_env_close(env);
  }
  const std::string keep = book_keep_path(db, t.rules, start, 2);
  int total = 0;
  {
    Store store(db, true);
    Probe probe(store, t, 1 << 20);
    try {
      build_book(
          t.rules, store, probe, start, 2, {},
          [&](int done, int all) {
            total = all;
            if (done == all / 2) disk.fill();
          },
          {}, keep);
      ADD_FAILURE() << "the book was stored on a full disk";
    } catch (const DbError& e) {
      const std::string why = e.what();
      EXPECT_TRUE(test::contains(why, "disk full")) << why;
      EXPECT_TRUE(test::contains(why, "free space and run the same command again: the ")) << why;
      EXPECT_TRUE(test::contains(why, " solved positions are kept in " + keep)) << why;
      EXPECT_EQ(why.find('\n'), std::string::npos);
    }
  }
  ASSERT_GT(total, 3);
  disk.empty();
  const test::CliResult r = test::run_cli(
      "KALAH solve --pits 4 --stones 2 --rules kalah --book "
      "--book-plies 2 --json --db " +
      db);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["stored"].get<int>(), 3);
  EXPECT_EQ(j["reused"], j["stored"]) << r.out;
  EXPECT_EQ(j["nodes"].get<std::uint64_t>(), 0u) << "the rerun solved again: " << r.out;
  EXPECT_FALSE(std::filesystem::exists(keep));
  Store store(db, false);
  EXPECT_EQ(store.book_size(t).entries, j["stored"].get<std::uint64_t>());
}

}  // namespace
}  // namespace kalah
