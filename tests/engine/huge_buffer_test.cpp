// HugeBuffer: zero-filled, aligned, writable memory whatever its size and populating threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>

#include <sys/mman.h>
#include <unistd.h>

#include "engine/huge_buffer.hpp"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace kalah {
namespace {

// Sizes around the 2 MiB huge page, faulted in by more threads than it has pages too.
TEST(HugeBuffer, EveryByteIsZeroAndWritableOnAnyThreadCount) {
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  for (std::size_t bytes : {std::size_t(1), 2 * kMiB - 1, 2 * kMiB + 1, 9 * kMiB, 64 * kMiB}) {
    for (int threads : {0, 1, 2, 3, 16, 64}) {
      HugeBuffer buffer(bytes, true, threads);
      ASSERT_EQ(buffer.size(), bytes);
      auto* b = buffer.as<std::uint8_t>();
      ASSERT_EQ(reinterpret_cast<std::uintptr_t>(b) % (2 * kMiB), 0u);
      ASSERT_TRUE(std::all_of(b, b + bytes, [](std::uint8_t c) { return c == 0; }))
          << bytes << " bytes, " << threads << " threads";
      std::fill(b, b + bytes, std::uint8_t(0xA5));
      EXPECT_EQ(b[bytes - 1], 0xA5);
    }
  }
  HugeBuffer lazy(3 * kMiB, false);
  EXPECT_EQ(lazy.as<std::uint8_t>()[3 * kMiB - 1], 0);
}

// The process's resident memory in bytes (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * std::size_t(sysconf(_SC_PAGESIZE));
}

// Populating faults every slice in: the whole buffer is resident before it is touched.
TEST(HugeBuffer, APopulatedBufferIsResidentWhateverItsThreads) {
  constexpr std::size_t kBytes = std::size_t(64) << 20;
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  const bool supported = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  if (!supported) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
  for (int threads : {1, 3, 16}) {
    const std::size_t before = resident_bytes();
    HugeBuffer buffer(kBytes, true, threads);
    EXPECT_GE(resident_bytes(), before + kBytes * 15 / 16) << threads << " threads";
  }
  const std::size_t before = resident_bytes();
  HugeBuffer lazy(kBytes, false, 3);
  EXPECT_LT(resident_bytes(), before + kBytes / 2);
}

}  // namespace
}  // namespace kalah
