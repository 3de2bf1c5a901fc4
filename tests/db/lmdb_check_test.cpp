// The store against damaged files: truncated or empty data files, damaged index pages, book
// entries that fail their checksum or carry none, read-only directories: errors, never signals.
#include <gtest/gtest.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "db/format.hpp"
#include "db/index.hpp"
#include "db/store.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

using test::TempDir;
namespace fs = std::filesystem;

constexpr TableId kTable{Rules::kWetherell, 3};
constexpr int kTop = 9;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DbError& e) {
    return e.what();
  }
  return "";
}

// A table of 3 pits, levels 0..kTop in blocks of 64 values, one block a record (a main tree of
// two levels of pages), one level in one record on overflow pages, and a book.
std::vector<std::vector<std::int8_t>> make_table(const std::string& path) {
  const LevelIndex index(3, kTop);
  std::vector<std::vector<std::int8_t>> levels;
  StoreOptions o = test::fast_store();
  o.block_entries = 64;
  o.blocks_per_group = 1;
  Store store(path, true, o);
  for (int n = 0; n <= kTop; ++n) {
    if (n == kTop) {
      o.blocks_per_group = 1000;
      store.set_options(o);
    }
    levels.push_back(test::pits_level(index, n));
    store.write_level(kTable, n, levels.back());
  }
  store.put_book(kTable, {{{1, 2, 3, 4, 5, 6}, 7}, {{9, 9, 9, 9, 9, 9}, -2}});
  return levels;
}

// Little-endian words of a data file's bytes.
std::uint64_t u16_at(const std::string& data, std::size_t at) {
  std::uint16_t v;
  std::memcpy(&v, data.data() + at, 2);
  return v;
}
std::uint64_t u64_at(const std::string& data, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, data.data() + at, 8);
  return v;
}

// A data file's page size, and the offset of the meta page of its newest transaction: LMDB 0.9's
// layout (db/lmdb_check.cpp).
std::size_t page_size(const std::string& data) {
  return std::size_t(u64_at(data, 16 + 24) & 0xffffffff);
}
std::size_t newest_meta(const std::string& data) {
  const std::size_t psize = page_size(data);
  return u64_at(data, 16 + 128) >= u64_at(data, psize + 16 + 128) ? 0 : psize;
}

// The live index pages (branch and leaf) of the newest snapshot's main tree.
std::vector<std::uint64_t> live_index_pages(const std::string& data) {
  const auto u16 = [&](std::size_t at) { return u16_at(data, at); };
  const std::size_t psize = page_size(data);
  std::vector<std::uint64_t> pages, stack{u64_at(data, newest_meta(data) + 16 + 24 + 48 + 40)};
  while (!stack.empty()) {
    const std::uint64_t pgno = stack.back();
    stack.pop_back();
    pages.push_back(pgno);
    const std::size_t base = pgno * psize;
    if (!(u16(base + 10) & 1)) continue;  // a leaf
    for (std::size_t i = 0; i < (u16(base + 12) - 16) / 2; ++i) {
      const std::size_t node = base + u16(base + 16 + 2 * i);
      stack.push_back(u16(node) | u16(node + 2) << 16 | u16(node + 4) << 32);
    }
  }
  return pages;
}

// Every read of the store: each level whole and the book, equal to what was written, or a
// DbError. Returns whether all were read.
bool reads_are_true_or_errors(const std::string& path,
                              const std::vector<std::vector<std::int8_t>>& levels) {
  bool all = true;
  try {
    const Store store(path, false);
    for (int n = 0; n <= kTop; ++n) {
      try {
        std::vector<std::int8_t> got(levels[n].size());
        store.read_level(kTable, n, got, 1);
        EXPECT_EQ(got, levels[n]) << "level " << n;
      } catch (const DbError&) {
        all = false;
      }
    }
    try {
      for (const auto& [pits, margin] : store.book_entries(kTable))
        EXPECT_EQ(margin, pits[0] == 1 ? 7 : -2);
    } catch (const DbError&) {
      all = false;
    }
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return false;
  }
  return all;
}

TEST(LmdbCheck, ATruncatedDataFileIsAnErrorForReadersAndWriters) {
  TempDir dir("check_truncated");
  make_table(dir.str());
  const std::string data = read_file(dir.path() / "data.mdb");
  for (const std::size_t size : {data.size() / 2, std::size_t(3 * 4096), data.size() - 1}) {
    write_file(dir.path() / "data.mdb", data.substr(0, size));
    for (const bool writable : {false, true}) {
      const std::string e = error_of([&] { Store s(dir.str(), writable); });
      EXPECT_NE(e.find("truncated"), std::string::npos) << size << ": " << e;
      EXPECT_NE(e.find(dir.str()), std::string::npos) << e;
    }
  }
}

// Where the first list of free pages lies in a data file: the free-list database's root page,
// a leaf, and in it node 0, whose value (a count, then page numbers) is on the page at `list`.
struct FreeList {
  std::uint64_t root;
  std::size_t node, list;
};
void first_free_list(const std::string& data, FreeList& out) {
  const std::size_t psize = page_size(data);
  out.root = u64_at(data, newest_meta(data) + 16 + 24 + 40);
  ASSERT_NE(out.root, ~std::uint64_t(0)) << "no free pages";
  ASSERT_EQ(u16_at(data, out.root * psize + 10) & 2, 2u) << "the free list's root is a leaf";
  out.node = out.root * psize + u16_at(data, out.root * psize + 16);
  ASSERT_EQ(u16_at(data, out.node + 4) & 1, 0u) << "its first list lies on the page";
  out.list = out.node + 8 + u16_at(data, out.node + 6);
}

// A table whose last level was written twice, so that the first writing's pages are free: the
// data file's bytes.
std::string table_with_free_pages(const std::string& dir,
                                  const std::vector<std::vector<std::int8_t>>& levels) {
  {
    Store store(dir, true, test::fast_store());
    store.write_level(kTable, kTop, levels[kTop]);  // the old level's pages become free
  }
  return read_file(fs::path(dir) / "data.mdb");
}

// A damaged list of free pages (which only a write transaction reads, merging it unchecked) makes a
// writable open an error; readers still read.
TEST(LmdbCheck, ADamagedFreePageListIsAnErrorForWritersOnly) {
  TempDir dir("check_free_list");
  const auto levels = make_table(dir.str());
  std::string data = table_with_free_pages(dir.str(), levels);
  FreeList free;
  ASSERT_NO_FATAL_FAILURE(first_free_list(data, free));
  const auto [root, node, list] = free;
  data[list] = char(data[list] + 100);  // the list's count
  write_file(dir.path() / "data.mdb", data);

  const std::string e = error_of([&] { Store s(dir.str(), true); });
  EXPECT_NE(e.find("free-list database: page " + std::to_string(root) +
                   " node 0's list of free "
                   "pages is damaged"),
            std::string::npos)
      << e;
  EXPECT_TRUE(reads_are_true_or_errors(dir.str(), levels));
}

// A page listed free that the newest snapshot still uses (a write transaction would allocate it
// over live data; LMDB asserts and aborts) makes a writable open an error; readers still read.
TEST(LmdbCheck, APageListedFreeWhileInUseIsAnErrorForWritersOnly) {
  TempDir dir("check_free_in_use");
  const auto levels = make_table(dir.str());
  std::string data = table_with_free_pages(dir.str(), levels);
  FreeList free;
  ASSERT_NO_FATAL_FAILURE(first_free_list(data, free));
  const auto [root, node, list] = free;
  ASSERT_GE(u64_at(data, list), 1u);
  // The first list becomes one page long, and that page the main tree's root.
  const std::uint64_t live = live_index_pages(data).front();
  data[node] = 16;
  data[node + 1] = data[node + 2] = data[node + 3] = 0;
  const std::uint64_t one = 1;
  std::memcpy(&data[list], &one, 8);
  std::memcpy(&data[list + 8], &live, 8);
  write_file(dir.path() / "data.mdb", data);

  const std::string e = error_of([&] {
    Store s(dir.str(), true);
    s.write_level(kTable, kTop, levels[kTop]);
  });
  EXPECT_NE(
      e.find("free-list database: page " + std::to_string(live) + " is listed free but in use"),
      std::string::npos)
      << e;
  EXPECT_TRUE(read_file(dir.path() / "data.mdb") == data) << "the failed open changed the file";
  EXPECT_TRUE(reads_are_true_or_errors(dir.str(), levels));
}

// A node whose key size was damaged so that it covers its neighbour (a write that deletes it moves
// the page's other nodes by the wrong size; LMDB then follows garbage and crashes) is an error for
// every open, naming both nodes.
TEST(LmdbCheck, OverlappingNodesAreAnErrorForReadersAndWriters) {
  TempDir dir("check_overlap");
  const auto levels = make_table(dir.str());
  std::string data = read_file(dir.path() / "data.mdb");
  const auto u16 = [&](std::size_t at) { return std::size_t(u16_at(data, at)); };
  const std::size_t psize = page_size(data);
  std::size_t leaf = 0;
  for (const std::uint64_t pgno : live_index_pages(data))
    if ((u16(pgno * psize + 10) & 2) && u16(pgno * psize + 12) >= 16 + 2 * 3) leaf = pgno;
  ASSERT_NE(leaf, 0u) << "a leaf page with 3 nodes";
  const std::size_t base = leaf * psize;
  const std::size_t first = base + u16(base + 16), second = base + u16(base + 18);
  ASSERT_LT(second, first) << "node 1 lies below node 0";
  const std::size_t ksize = u16(second + 6) + 16;  // node 1's key reaches 16 bytes into node 0
  data[second + 6] = char(ksize & 0xff);
  data[second + 7] = char(ksize >> 8);
  ASSERT_GT(second + 8 + ksize + u16(second), first);
  write_file(dir.path() / "data.mdb", data);

  for (const bool writable : {false, true}) {
    const std::string e = error_of([&] {
      Store s(dir.str(), writable);
      if (writable) s.write_level(kTable, kTop, levels[kTop]);
    });
    EXPECT_NE(e.find("page " + std::to_string(leaf) + " node 1 overlaps node 0"), std::string::npos)
        << writable << ": " << e;
  }
  EXPECT_TRUE(read_file(dir.path() / "data.mdb") == data) << "the failed open changed the file";
}

// Database flags LMDB would act on (sorted duplicates: a write's page allocation aborts on the
// free-list database's) make every open an error naming them.
TEST(LmdbCheck, DatabaseFlagsOtherThanLmdbsAreAnErrorForReadersAndWriters) {
  TempDir dir("check_db_flags");
  make_table(dir.str());
  const std::string data = read_file(dir.path() / "data.mdb");
  std::uint32_t psize;
  std::memcpy(&psize, data.data() + 16 + 24, 4);  // the free-list database record's pad
  for (const auto& [db, name] : {std::pair{0, "free-list"}, std::pair{1, "main"}}) {
    std::string damaged = data;
    for (const std::size_t meta : {std::size_t(0), std::size_t(psize)})
      damaged[meta + 16 + 24 + 48 * db + 4] |= 0x04;  // MDB_DUPSORT in the record's flags
    write_file(dir.path() / "data.mdb", damaged);
    for (const bool writable : {false, true}) {
      const std::string e = error_of([&] { Store s(dir.str(), writable); });
      EXPECT_NE(e.find(std::string(name) + " database flags 0x"), std::string::npos)
          << name << (writable ? " writable: " : ": ") << e;
    }
  }
}

TEST(LmdbCheck, AnEmptyDataFileIsNoDatabaseToReadAndANewOneToWrite) {
  TempDir dir("check_empty");
  fs::create_directories(dir.path());
  write_file(dir.path() / "data.mdb", "");
  EXPECT_NE(error_of([&] { Store s(dir.str(), false); }).find("data.mdb is empty"),
            std::string::npos);
  {
    Store s(dir.str(), true);
    s.put_book(kTable, {{{1, 1, 1, 1, 1, 1}, 2}});
  }
  EXPECT_EQ(Store(dir.str(), false).get_book(kTable, std::vector<Stones>{1, 1, 1, 1, 1, 1}), 2);
}

TEST(LmdbCheck, DamagedIndexPagesAreErrorsOrTrueValues) {
  TempDir dir("check_index");
  const auto levels = make_table(dir.str());
  const std::string data = read_file(dir.path() / "data.mdb");
  const std::vector<std::uint64_t> pages = live_index_pages(data);
  ASSERT_GE(pages.size(), 3u) << "the main tree has a branch root";
  const std::uint64_t psize = 4096;
  TempDir copy("check_index_copy");
  fs::create_directories(copy.path());
  // The root's last child aimed at the level on overflow pages.
  {
    std::string d = data;
    const std::size_t root = pages[0] * psize;
    std::uint16_t lower, at;
    std::memcpy(&lower, d.data() + root + 12, 2);
    std::memcpy(&at, d.data() + root + 16 + (lower - 16) - 2, 2);
    const std::uint64_t last_page = data.size() / psize - 1;
    const std::uint16_t to[3] = {std::uint16_t(last_page), std::uint16_t(last_page >> 16), 0};
    std::memcpy(d.data() + root + at, to, 6);
    write_file(copy.path() / "data.mdb", d);
    const std::string e = error_of([&] { Store s(copy.str(), false); });
    EXPECT_NE(e.find("damaged LMDB file"), std::string::npos) << e;
  }
  // 1-4 bits flipped in a live index page, 80 copies.
  std::mt19937 rng(43);
  int refused = 0;
  for (int c = 0; c < 80; ++c) {
    std::string d = data;
    const std::uint64_t page = pages[rng() % pages.size()];
    for (int k = 1 + int(rng() % 4); k > 0; --k) d[page * psize + rng() % psize] ^= 1 << rng() % 8;
    write_file(copy.path() / "data.mdb", d);
    fs::remove(copy.path() / "lock.mdb");
    refused += !reads_are_true_or_errors(copy.str(), levels);
  }
  EXPECT_GT(refused, 40) << "most flips in live index pages are found";
}

// LMDB reads snapshot T's databases from meta page T & 1: an older meta page given a newer id of
// the other parity would have readers walk the trees of a page the check did not choose.
TEST(LmdbCheck, TheNewestTransactionOnTheWrongMetaPageIsDamage) {
  TempDir dir("check_meta_parity");
  make_table(dir.str());
  std::string data = read_file(dir.path() / "data.mdb");
  const std::size_t psize = 4096, txnid_at = 16 + 128;
  std::uint64_t ids[2];
  for (int m = 0; m < 2; ++m) std::memcpy(&ids[m], data.data() + m * psize + txnid_at, 8);
  const std::uint64_t newest = std::max(ids[0], ids[1]);
  ASSERT_EQ(ids[newest & 1], newest);
  const std::uint64_t moved = newest + 2;  // on the older page, of the newest page's parity
  std::memcpy(data.data() + (1 - (newest & 1)) * psize + txnid_at, &moved, 8);
  write_file(dir.path() / "data.mdb", data);
  fs::remove(dir.path() / "lock.mdb");
  for (const bool writable : {false, true}) {
    const std::string e = error_of([&] { Store s(dir.str(), writable); });
    EXPECT_NE(e.find("damaged LMDB file"), std::string::npos) << e;
    EXPECT_NE(e.find("not on meta page"), std::string::npos) << e;
  }
}

// Writes a book entry's value as format version 1 did: the margin alone, and the header's version.
void write_version_1_entry(const std::string& path, const std::vector<Stones>& pits, int margin) {
  std::string value;
  format::put_le(value, std::uint16_t(std::int16_t(margin)), 2);
  test::edit_raw(path, format::book_key(kTable, pits).view(), value);
  std::string header = format::encode_header();
  header[8] = 1;
  test::edit_raw(path, format::header_key().view(), header);
}

TEST(LmdbCheck, AVersion1BookEntryIsNotUsedUntilRewritten) {
  TempDir dir("check_book_v1");
  make_table(dir.str());
  const std::vector<Stones> old{2, 2, 2, 2, 2, 2};
  write_version_1_entry(dir.str(), old, 4);
  {
    const Store store(dir.str(), false);
    EXPECT_EQ(store.get_book(kTable, old), std::nullopt);
    EXPECT_EQ(store.book_size(kTable).entries, 2u);
    EXPECT_EQ(store.book_size(kTable).unchecked, 1u);
    EXPECT_EQ(store.book_entries(kTable).size(), 2u);
  }
  const test::CliResult r = test::run_cli("KALAH stats --db " + dir.str());
  EXPECT_NE(r.out.find("1 entries without checksums"), std::string::npos) << r.out << r.err;
  {
    Store store(dir.str(), true);
    store.put_book(kTable, {{old, 0}});
  }
  const Store store(dir.str(), false);
  EXPECT_EQ(store.get_book(kTable, old), 0);
  EXPECT_EQ(store.book_size(kTable).unchecked, 0u);
}

TEST(LmdbCheck, ABookEntryChangedOrMovedFailsItsChecksum) {
  TempDir dir("check_book");
  make_table(dir.str());
  const std::vector<Stones> a{1, 2, 3, 4, 5, 6}, b{9, 9, 9, 9, 9, 9};
  const format::Key ka = format::book_key(kTable, a), kb = format::book_key(kTable, b);
  const std::string va = format::encode_book_value(ka.view(), 7);
  const std::string data = read_file(dir.path() / "data.mdb");
  ASSERT_NE(data.find(va), std::string::npos);
  for (const bool moved : {false, true}) {
    std::string d = data;
    if (moved)  // b's value written over a's
      d.replace(d.find(va), va.size(), format::encode_book_value(kb.view(), -2));
    else
      d[d.find(va)] ^= 2;  // margin 7 -> 5
    write_file(dir.path() / "data.mdb", d);
    const Store store(dir.str(), false);
    const std::string e = error_of([&] { (void)store.get_book(kTable, a); });
    EXPECT_NE(e.find("pits 1,2,3,4,5,6 fails its checksum"), std::string::npos) << e;
    EXPECT_NE(error_of([&] { (void)store.book_entries(kTable); }), "");
    EXPECT_EQ(store.get_book(kTable, b), -2);
  }
}

// A reader who may not write the directory (a shipped table) reads it without a lock file.
TEST(LmdbCheck, ATableInADirectoryTheReaderCannotWriteIsRead) {
  TempDir dir("check_readonly");
  make_table(dir.str());
  fs::remove(dir.path() / "lock.mdb");
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir.path() / "data.mdb", fs::perms::owner_read | fs::perms::owner_write |
                                               fs::perms::group_read | fs::perms::others_read);
  // Root may write anything: the reader is then the unprivileged user `nobody`.
  std::string as_reader;
  if (::geteuid() == 0) {
    as_reader = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    for (fs::path p = dir.path().parent_path(); p != p.root_path(); p = p.parent_path())
      ASSERT_EQ(::access(p.c_str(), X_OK), 0);
  } else {
    fs::permissions(dir.path(), fs::perms::owner_write, fs::perm_options::remove);
  }
  const test::CliResult r =
      test::run_cli(as_reader + "KALAH query '1,0,1,0/0,1,1,0 S' --max-time 0 --db " + dir.str() +
                    " --rules wetherell");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("exact, database"), std::string::npos) << r.out << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "lock.mdb"));
  fs::permissions(dir.path(), fs::perms::owner_all, fs::perm_options::add);
}

}  // namespace
}  // namespace kalah
