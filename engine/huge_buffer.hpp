// HugeBuffer: zeroed memory in one anonymous mapping on transparent huge pages, faulted in up
// front.
#pragma once

#include <cstddef>
#include <utility>

namespace kalah {

// Owns `bytes` of zero-filled memory, aligned to 2 MiB. Large buffers are advised onto transparent
// huge pages, and `populate` faults the whole buffer in at construction, one system call on each
// of `threads` threads (one slice each; fewer where a thread cannot be started): on virtual
// machines a page fault taken one 4 KiB page at a time can cost more than filling the memory, and
// the kernel's first touch of fresh memory can take seconds a GiB (figures: docs/PERFORMANCE.md,
// "Memory latency").
// Both are requests: where the kernel refuses them the memory is still correct, only slower.
// Throws std::bad_alloc when the mapping fails.
class HugeBuffer {
 public:
  HugeBuffer() = default;
  explicit HugeBuffer(std::size_t bytes, bool populate = true, int threads = 1);
  ~HugeBuffer();
  HugeBuffer(HugeBuffer&& o) noexcept { swap(o); }
  HugeBuffer& operator=(HugeBuffer&& o) noexcept {
    HugeBuffer(std::move(o)).swap(*this);
    return *this;
  }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void swap(HugeBuffer& o) noexcept {
    std::swap(map_, o.map_);
    std::swap(map_length_, o.map_length_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }
  void* map_ = nullptr;
  std::size_t map_length_ = 0;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace kalah
