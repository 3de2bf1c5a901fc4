// arena_threads: the size of a TBB task arena for a --threads option.
#pragma once

#include <algorithm>

#include <tbb/info.h>
#include <tbb/task_arena.h>

namespace kalah {

// `threads` workers (0: automatic, one a core), at most the cores TBB runs: asking for more would
// only make TBB print a warning and use the cores.
inline int arena_threads(int threads) {
  return threads > 0 ? std::min(threads, tbb::info::default_concurrency())
                     : tbb::task_arena::automatic;
}

}  // namespace kalah
