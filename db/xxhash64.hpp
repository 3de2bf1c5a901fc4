// XXH64 (xxHash's 64-bit variant, from Debian's libxxhash), the checksum of every stored block
// and level.
#pragma once

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace kalah {

// XXH64 of bytes [data, data+len) with the given seed (`xxhsum -H1`), so a database can be
// checked with standard tools.
inline std::uint64_t xxh64(const void* data, std::size_t len, std::uint64_t seed = 0) {
  return XXH64(data, len, seed);
}

// Incremental XXH64: update() with consecutive pieces, then digest() equals xxh64 of them joined.
class Xxh64Stream {
 public:
  explicit Xxh64Stream(std::uint64_t seed = 0) : state_(XXH64_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH64_reset(state_.get(), seed);
  }
  void update(const void* data, std::size_t len) { XXH64_update(state_.get(), data, len); }
  std::uint64_t digest() const { return XXH64_digest(state_.get()); }

 private:
  struct Free {
    void operator()(XXH64_state_t* s) const { XXH64_freeState(s); }
  };
  std::unique_ptr<XXH64_state_t, Free> state_;
};

}  // namespace kalah
