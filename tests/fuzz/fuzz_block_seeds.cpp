// Writes fuzz_block's seed inputs into DIR: valid blocks from the real encoder (mode a) and
// framing inputs (mode b), so that no binary seed is committed. Usage: fuzz_block_seeds DIR
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "db/block_codec.hpp"

namespace {

// count values of level n in [-n, n] of n's parity, a fixed pseudo-random sequence.
std::vector<std::int8_t> level_values(int n, std::uint32_t count) {
  std::vector<std::int8_t> v(count);
  std::uint32_t x = 12345;
  for (auto& e : v) {
    x = x * 1103515245u + 12345u;
    e = std::int8_t(2 * int((x >> 16) % std::uint32_t(n + 1)) - n);
  }
  return v;
}

bool write(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  return bool(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_block_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  // Mode (a): '\0' + a stored block.
  const std::pair<int, std::uint32_t> blocks[] = {{0, 0}, {1, 1}, {4, 64}, {12, 300}, {20, 1000}};
  for (const auto& [n, count] : blocks)
    ok &= write(dir + "/block_n" + std::to_string(n) + "_" + std::to_string(count),
                std::string(1, '\0') + kalah::encode_block(level_values(n, count), 3));
  // Mode (b): '\1' + control bytes (fuzz_block.cpp) + patch + value source.
  const std::string framed[] = {
      std::string("\1\x05\x40\x00\x06\x00\x00\x00\x00", 9) + "0123456789",       // intact
      std::string("\1\x0c\x00\x01\x06\x03\x00\x04\x00", 9) + "ABCD" + "xyzzy",   // patched
      std::string("\1\x14\xe8\x03\x06\x10\x00\x02\x01", 9) + "\xff\xff" + "pq",  // patched, cut
      std::string("\1\x05\x40\x00\x06\x00\x00\x00\x44", 9) + "0123456789",       // bound, intact
      std::string("\1\x05\x40\x00\x06\x00\x00\x00\x6c", 9) + "0123456789",       // another index
  };
  for (std::size_t i = 0; i < std::size(framed); ++i)
    ok &= write(dir + "/framed_" + std::to_string(i), framed[i]);
  if (!ok) std::fprintf(stderr, "fuzz_block_seeds: cannot write into %s\n", dir.c_str());
  return ok ? 0 : 1;
}
