// for_each_index: a parallel loop over [0, count) on plain threads, for the database's bulk work.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace kalah {

// Calls fn(i) for every i in [0, count) on up to `threads` threads (0: all cores), each index
// once. The first exception stops the handing out of indices and is rethrown once all threads
// have stopped.
template <class Fn>
void for_each_index(std::size_t count, unsigned threads, const Fn& fn) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto work = [&] {
    try {
      for (std::size_t i; !failed && (i = next++) < count;) fn(i);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::min<std::size_t>(threads, std::max<std::size_t>(count, 1)));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace kalah
