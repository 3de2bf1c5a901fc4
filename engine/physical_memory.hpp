// The machine's physical memory, which bounds the tables and buffers the tools allocate.
#pragma once

#include <unistd.h>

#include <cstdint>

namespace kalah {

// Bytes of physical memory, as the system reports it.
inline std::uint64_t physical_memory_bytes() {
  return std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGE_SIZE));
}

}  // namespace kalah
