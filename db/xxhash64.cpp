// XXH64 written from the published specification (xxhash.com, "xxHash fast digest algorithm").
#include "xxhash64.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace kalah {
namespace {

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kP5 = 0x27D4EB2F165667C5ULL;

// Little-endian loads, whatever the host byte order.
inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline std::uint32_t load32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

inline std::uint64_t round(std::uint64_t acc, std::uint64_t input) {
  acc += input * kP2;
  return std::rotl(acc, 31) * kP1;
}
inline std::uint64_t merge_round(std::uint64_t acc, std::uint64_t val) {
  acc ^= round(0, val);
  return acc * kP1 + kP4;
}

// Consumes whole 32-byte stripes from p; returns the first unconsumed byte.
inline const unsigned char* stripes(std::uint64_t* v, const unsigned char* p,
                                    const unsigned char* end) {
  for (; end - p >= 32; p += 32) {
    v[0] = round(v[0], load64(p));
    v[1] = round(v[1], load64(p + 8));
    v[2] = round(v[2], load64(p + 16));
    v[3] = round(v[3], load64(p + 24));
  }
  return p;
}

// The tail (< 32 bytes) and the final avalanche.
std::uint64_t finish(std::uint64_t h, const unsigned char* p, const unsigned char* end) {
  for (; p + 8 <= end; p += 8) {
    h ^= round(0, load64(p));
    h = std::rotl(h, 27) * kP1 + kP4;
  }
  if (p + 4 <= end) {
    h ^= std::uint64_t(load32(p)) * kP1;
    h = std::rotl(h, 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= std::uint64_t(*p) * kP5;
    h = std::rotl(h, 11) * kP1;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

std::uint64_t converge(const std::uint64_t* v) {
  std::uint64_t h =
      std::rotl(v[0], 1) + std::rotl(v[1], 7) + std::rotl(v[2], 12) + std::rotl(v[3], 18);
  for (int i = 0; i < 4; ++i) h = merge_round(h, v[i]);
  return h;
}

}  // namespace

std::uint64_t xxh64(const void* data, std::size_t len, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + len;
  std::uint64_t h;
  if (len >= 32) {
    std::uint64_t v[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
    p = stripes(v, p, end);
    h = converge(v);
  } else {
    h = seed + kP5;
  }
  return finish(h + std::uint64_t(len), p, end);
}

Xxh64Stream::Xxh64Stream(std::uint64_t seed)
    : seed_(seed), v_{seed + kP1 + kP2, seed + kP2, seed, seed - kP1} {}

void Xxh64Stream::update(const void* data, std::size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + len;
  total_ += len;
  if (buffered_ > 0) {
    const std::size_t take = std::min<std::size_t>(32 - buffered_, len);
    std::memcpy(buf_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    if (buffered_ < 32) return;
    stripes(v_, buf_, buf_ + 32);
    buffered_ = 0;
  }
  p = stripes(v_, p, end);
  buffered_ = std::size_t(end - p);
  std::memcpy(buf_, p, buffered_);
}

std::uint64_t Xxh64Stream::digest() const {
  const std::uint64_t h = total_ >= 32 ? converge(v_) : seed_ + kP5;
  return finish(h + total_, buf_, buf_ + buffered_);
}

}  // namespace kalah
