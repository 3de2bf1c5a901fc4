// HugeBuffer: the mapping, its huge-page advice and its up-front population.
#include "huge_buffer.hpp"

#include <cstdint>
#include <new>

#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL and fault lazily
#endif

namespace kalah {
namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
}

HugeBuffer::HugeBuffer(std::size_t bytes, bool populate) {
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
  if (populate) madvise(data_, span, MADV_POPULATE_WRITE);      // likewise
}

HugeBuffer::~HugeBuffer() {
  if (map_ != nullptr) munmap(map_, map_length_);
}

}  // namespace kalah
