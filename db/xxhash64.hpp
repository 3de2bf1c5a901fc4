// XXH64 (Yann Collet's xxHash, 64-bit variant), the checksum of every stored block and level.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kalah {

// XXH64 of bytes [data, data+len) with the given seed; bit-identical to the reference XXH64
// (`xxhsum -H1`), so a database can be checked with standard tools.
std::uint64_t xxh64(const void* data, std::size_t len, std::uint64_t seed = 0);

// Incremental XXH64: update() with consecutive pieces, then digest() equals xxh64 of them joined.
class Xxh64Stream {
 public:
  explicit Xxh64Stream(std::uint64_t seed = 0);
  void update(const void* data, std::size_t len);
  std::uint64_t digest() const;

 private:
  std::uint64_t seed_, total_ = 0, v_[4];
  unsigned char buf_[32];
  std::size_t buffered_ = 0;
};

}  // namespace kalah
