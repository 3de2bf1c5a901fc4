// Writes fuzz_db_file's seed inputs into DIR: the data.mdb of small databases written by the real
// store (levels in one-block records and on overflow pages, a book), so that no binary seed is
// committed. Usage: fuzz_db_file_seeds DIR
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace {

// Level n of m pits: a value per rank in [-n, n] of n's parity, a fixed pseudo-random sequence.
std::vector<std::int8_t> level_values(int m, int n) {
  std::vector<std::int8_t> v(kalah::level_entries(m, n));
  std::uint32_t x = 12345;
  for (auto& e : v) {
    x = x * 1103515245u + 12345u;
    e = std::int8_t(2 * int((x >> 16) % std::uint32_t(n + 1)) - n);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_db_file_seeds DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path work =
      fs::temp_directory_path() / ("kalah_fuzz_seeds_" + std::to_string(getpid()));
  struct Seed {
    int m, top;
    std::uint32_t block_entries, blocks_per_group;
  };
  const Seed seeds[] = {{2, 6, 8, 1}, {2, 10, 16, 1}, {3, 7, 64, 1000}};
  int i = 0;
  for (const Seed& s : seeds) {
    fs::remove_all(work);
    {
      kalah::StoreOptions o;
      o.block_entries = s.block_entries;
      o.blocks_per_group = s.blocks_per_group;
      o.zstd_level = 1;
      o.threads = 1;
      o.map_size = 64 << 20;
      kalah::Store store(work.string(), true, o);
      const kalah::TableId t{kalah::Rules::kWetherell, s.m};
      for (int n = 0; n <= s.top; ++n) store.write_level(t, n, level_values(s.m, n));
      std::vector<kalah::Stones> pits(std::size_t(2 * s.m), 1);
      store.put_book(t, {{pits, 2}});
    }
    fs::copy_file(work / "data.mdb", fs::path(argv[1]) / ("db" + std::to_string(i++) + ".mdb"),
                  fs::copy_options::overwrite_existing);
  }
  fs::remove_all(work);
  return 0;
}
