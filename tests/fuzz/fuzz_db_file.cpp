// libFuzzer target: any bytes as a database's data.mdb, opened read-only and read through every
// reader of the store: each read returns or throws DbError, never a signal or another exception.
// Besides libFuzzer's byte mutations, a custom mutator moves whole records: two values of one
// record type swapped, one copied over another, one stored under a key one byte away.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "db/db_error.hpp"
#include "db/format.hpp"
#include "db/lmdb_env.hpp"
#include "db/store.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// Levels larger than this are not read whole (a fuzzed record may claim any size).
constexpr std::uint64_t kMaxReadEntries = 1 << 20;

// A database directory of this process, removed at exit.
struct DbDir {
  std::string path;
  explicit DbDir(const char* what)
      : path(std::filesystem::temp_directory_path().string() + "/kalah_fuzz_" + what + "_" +
             std::to_string(::getpid())) {
    std::filesystem::create_directories(path);
  }
  ~DbDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

const std::string& db_dir() {
  static const DbDir dir("db");
  return dir.path;
}

// Writes bytes as the data.mdb of directory dir (without a lock file).
void write_data_file(const std::string& dir, const std::uint8_t* data, std::size_t size) {
  std::filesystem::remove(dir + "/lock.mdb");
  std::ofstream out(dir + "/data.mdb", std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

// Moves whole records of the database `data` holds, as a misdirected write or a copy tool would:
// two records of one type (first key byte) get each other's values, or one gets a copy of the
// other's, or one's value is stored under its key with one byte changed (another level, table,
// group or position). Returns the new file's size, written into data, or 0 when the input is no
// database the store opens for writing or the result would exceed max_size.
std::size_t move_records(std::uint8_t* data, std::size_t size, std::size_t max_size,
                         unsigned seed) {
  static const DbDir dir("mutate");
  write_data_file(dir.path, data, size);
  std::mt19937 rng(seed);
  try {
    kalah::LmdbEnv env(dir.path, true, std::uint64_t(64) << 20);
    kalah::LmdbTxn txn(env, true);
    std::vector<std::pair<std::string, std::string>> records;
    txn.scan("", [&](std::string_view k, std::string_view v) {
      records.emplace_back(k, v);
      return true;
    });
    if (records.size() < 2) return 0;
    const auto& a = records[rng() % records.size()];
    const auto* b = &records[rng() % records.size()];
    for (int tries = 0; tries < 8 && (b == &a || b->first[0] != a.first[0]); ++tries)
      b = &records[rng() % records.size()];
    switch (rng() % 3) {
      case 0:
        txn.put(a.first, b->second);
        txn.put(b->first, a.second);
        break;
      case 1:
        txn.put(b->first, a.second);
        break;
      default: {
        std::string key = a.first;
        if (key.size() < 2) return 0;
        const std::size_t at = 1 + rng() % (key.size() - 1);
        key[at] = char(rng() % 2 ? key[at] + 1 : b->first.size() > at ? b->first[at] : key[at] - 1);
        txn.put(key, a.second);
        if (rng() % 2) txn.erase_prefix(a.first);
      }
    }
    txn.commit();
  } catch (const kalah::DbError&) {
    return 0;
  }
  std::ifstream in(dir.path + "/data.mdb", std::ios::binary);
  const std::string moved{std::istreambuf_iterator<char>(in), {}};
  if (moved.empty() || moved.size() > max_size) return 0;
  std::memcpy(data, moved.data(), moved.size());
  return moved.size();
}

// Every read a reader of the store makes, each allowed to fail with DbError alone.
void read_everything(const kalah::Store& store) {
  for (const kalah::TableId t : store.tables()) {
    const int through = store.complete_through(t);
    for (int n = 0; n <= std::min(through + 1, kalah::format::kMaxLevel); ++n) {
      try {
        const auto meta = store.level_meta(t, n);
        if (!meta || meta->entries != kalah::level_entries(t.m, n) ||
            meta->entries > kMaxReadEntries)
          continue;
        std::vector<std::int8_t> values(meta->entries);
        store.read_level(t, n, values, 1);
        for (const std::int8_t v : values)
          kalah::fuzz::check(v >= -n && v <= n, "a level read whole holds values in [-n, n]");
        std::vector<std::int8_t> block;
        store.read_block(t, n, 0, block);
      } catch (const kalah::DbError&) {
      }
    }
    try {
      for (const auto& [pits, margin] : store.book_entries(t))
        kalah::fuzz::check(store.get_book(t, pits) == margin, "a book entry reads back the same");
    } catch (const kalah::DbError&) {
    }
    (void)store.book_size(t);
  }
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// One mutation in four moves whole records (when the input is a database LMDB opens); the others
// are libFuzzer's own.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned seed) {
  if (seed % 4 == 0)
    if (const std::size_t moved = move_records(data, size, max_size, seed / 4)) return moved;
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = db_dir();
  write_data_file(dir, data, size);
  try {
    const kalah::Store store(dir, false);
    read_everything(store);
  } catch (const kalah::DbError&) {
  } catch (...) {
    kalah::fuzz::unexpected_exception("a database file");
  }
  return 0;
}
