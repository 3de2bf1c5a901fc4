// HugeBuffer: the mapping, its huge-page advice and its up-front population.
#include "engine/huge_buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <thread>
#include <vector>

#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL and fault lazily
#endif

namespace kalah {
namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;

// Faults in the `span` bytes at `data` (whole huge pages) in `threads` slices, one on this thread
// and one on each helper thread that can be started; a slice left without its thread is
// populated here. madvise is advice: a refusal leaves the pages to be faulted in lazily.
void populate_pages(char* data, std::size_t span, int threads) {
  const std::size_t pages = span / kHugePage;
  const int slices = int(std::clamp<std::size_t>(std::size_t(std::max(threads, 1)), 1, pages));
  // slices <= pages, so every slice holds at least one page.
  const auto slice = [=](int i) {
    const std::size_t begin = pages * std::size_t(i) / std::size_t(slices);
    const std::size_t end = pages * std::size_t(i + 1) / std::size_t(slices);
    madvise(data + begin * kHugePage, (end - begin) * kHugePage, MADV_POPULATE_WRITE);
  };
  std::vector<std::thread> helpers;
  try {
    helpers.reserve(std::size_t(slices - 1));  // so that only starting a thread can throw below
    for (int i = 1; i < slices; ++i) helpers.emplace_back(slice, i);
  } catch (const std::exception&) {  // no memory or no thread: this thread populates the rest
  }
  for (int i = int(helpers.size()) + 1; i < slices; ++i) slice(i);
  slice(0);
  for (std::thread& h : helpers) h.join();
}
}  // namespace

HugeBuffer::HugeBuffer(std::size_t bytes, bool populate, int threads) {
  if (bytes == 0) return;
  const std::size_t span = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // One huge page more than the span, so that an aligned span fits whatever mmap returns.
  const std::size_t length = span + kHugePage;
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  map_ = p;
  map_length_ = length;
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  data_ = reinterpret_cast<void*>((at + kHugePage - 1) / kHugePage * kHugePage);
  size_ = bytes;
  if (bytes >= kHugePage) madvise(data_, span, MADV_HUGEPAGE);  // advice: failure is harmless
  if (populate) populate_pages(static_cast<char*>(data_), span, threads);  // likewise
}

HugeBuffer::~HugeBuffer() {
  if (map_ != nullptr) munmap(map_, map_length_);
}

}  // namespace kalah
