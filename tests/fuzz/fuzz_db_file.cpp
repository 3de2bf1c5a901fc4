// libFuzzer target: any bytes as a database's data.mdb, opened read-only and read through every
// reader of the store: each read returns or throws DbError, never a signal or another exception.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "db_error.hpp"
#include "format.hpp"
#include "fuzz_check.hpp"
#include "store.hpp"

namespace {

// Levels larger than this are not read whole (a fuzzed record may claim any size).
constexpr std::uint64_t kMaxReadEntries = 1 << 20;

// The database directory of this process, removed at exit.
struct DbDir {
  std::string path = std::filesystem::temp_directory_path().string() + "/kalah_fuzz_db_" +
                     std::to_string(::getpid());
  DbDir() { std::filesystem::create_directories(path); }
  ~DbDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

const std::string& db_dir() {
  static const DbDir dir;
  return dir.path;
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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = db_dir();
  std::filesystem::remove(dir + "/lock.mdb");
  {
    std::ofstream out(dir + "/data.mdb", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  try {
    const kalah::Store store(dir, false);
    read_everything(store);
  } catch (const kalah::DbError&) {
  } catch (...) {
    kalah::fuzz::unexpected_exception("a database file");
  }
  return 0;
}
