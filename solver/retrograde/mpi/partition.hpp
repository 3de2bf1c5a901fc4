// The partition of a level among processes (its slices) and the keys that ask a process a value.
#pragma once

#include <cstdint>
#include <vector>

namespace kalah {

// Most processes a job may have: a Request names its owner in 16 bits.
constexpr int kMaxProcesses = 1 << 16;

// A request for one value: the owner's local index and the level, in one key. A key fits a
// Request's 48 bits for local indices below 2^40 and levels 0..255; slices hold at most 2^32
// entries (SliceKernel refuses more), levels at most kMaxTableStones.
constexpr std::uint64_t request_key(std::uint64_t local, int level) {
  return local << 8 | unsigned(level);
}
constexpr int request_level(std::uint64_t key) {
  return int(key & 0xFF);
}
constexpr std::uint64_t request_local(std::uint64_t key) {
  return key >> 8;
}

// One value asked of another process (or of this one): its request_key and the process that
// holds it, in one word.
struct Request {
  std::uint64_t key : 48;
  std::uint64_t owner : 16;
};
static_assert(sizeof(Request) == 8);
static_assert(request_key(UINT32_MAX, 255) < std::uint64_t(1) << 48);

// Level n's slices among P processes: process q holds LevelIndex ranks [begin[q], begin[q+1]),
// begin[q] = floor(total * q / P). The slices are contiguous, in process order, cover every rank
// once, and their sizes differ by at most one.
struct Slices {
  std::vector<std::uint64_t> begin;

  Slices() = default;
  Slices(std::uint64_t total, int processes);
  int processes() const { return int(begin.size()) - 1; }
  std::uint64_t count(int q) const { return begin[q + 1] - begin[q]; }
  // The process holding rank r (< total): the equal split guessed, then corrected by a step or
  // two.
  int owner(std::uint64_t r) const {
    const int p = processes();
    const std::uint64_t total = begin[p];
    int q = total <= UINT64_MAX / unsigned(p)
                ? int(r * unsigned(p) / total)
                : int(static_cast<unsigned __int128>(r) * unsigned(p) / total);
    while (r < begin[q]) --q;
    while (r >= begin[q + 1]) ++q;
    return q;
  }
  // The request for rank r of these slices' level: its owner and the owner's local index.
  Request request(std::uint64_t r, int level) const {
    const int q = owner(r);
    return {request_key(r - begin[q], level), std::uint64_t(q)};
  }
};

}  // namespace kalah
