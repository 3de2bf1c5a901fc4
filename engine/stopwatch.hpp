// Seconds since a moment on the steady clock: the one way reports measure elapsed time.
#pragma once

#include <chrono>

namespace kalah {

using SteadyClock = std::chrono::steady_clock;

// Wall-clock seconds from `since` to now.
inline double seconds_since(SteadyClock::time_point since) {
  return std::chrono::duration<double>(SteadyClock::now() - since).count();
}

}  // namespace kalah
