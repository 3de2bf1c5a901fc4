// This process's slice of a level, solved band by band of equal potential with the other processes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "solver/mpi/mpi_world.hpp"
#include "solver/retrograde/level_kernel.hpp"
#include "solver/retrograde/mpi/exchange.hpp"
#include "solver/retrograde/mpi/partition.hpp"
#include "solver/retrograde/mpi/potential_order.hpp"
#include "solver/retrograde/mpi/slice_values.hpp"

namespace kalah {

// Computes this process's slice of level n (levels.bytes(n), opened with kUnknownValue), all
// processes together band by band of equal potential, in increasing potential: an entry's
// successors are then all solved, in this process's slices (read at once) or in others' (asked
// for in batches, Exchange). Collective: every process computes the same levels.
template <class R, int M>
class SliceKernel {
 public:
  SliceKernel(World w, const LevelIndex& index, LevelTables& levels,
              const std::vector<Slices>& slices, Exchange& exchange)
      : w_(w), moves_(index), levels_(levels), slices_(slices), exchange_(exchange) {}

  // Solves level n's slice; progress(entries of the slice solved so far) after each band. Returns
  // the number of bands. Throws InputError when the slice holds more than 2^32 entries.
  int compute_level(int n, const std::function<void(std::uint64_t)>& progress) {
    n_ = n;
    values_ = levels_.bytes(n).data();
    const std::uint64_t count = slices_[n].count(w_.rank);
    if (count > UINT32_MAX)
      throw InputError("level " + std::to_string(n) + " has " + std::to_string(count) +
                       " entries a process, more than 2^32: run more processes");
    potential_.template sort<R, M>(moves_.index(), n, slices_[n].begin[w_.rank], count);
    const std::vector<std::uint64_t>& start = potential_.band_start;
    const std::vector<std::uint64_t> batches = band_batches();
    std::uint64_t done = 0;
    for (int b = 0; b < potential_.bands(); ++b) {
      for (std::uint64_t k = 0; k < batches[b]; ++k) {
        const std::uint64_t lo = std::min(start[b + 1], start[b] + k * kBatch);
        const std::uint64_t hi = std::min(start[b + 1], lo + kBatch);
        batch(lo, hi);
        done += hi - lo;
      }
      if (progress) progress(done);
    }
    std::vector<std::uint32_t>().swap(potential_.order);
    return potential_.bands();
  }

 private:
  using Moves = LevelMoves<R, M>;
  using Ring = typename Moves::Ring;

  struct Remote {
    Request request;
    std::uint32_t place;  // the request's index in the exchange
    std::int8_t gain;
    bool again;
  };

  // The batches of each band: the most any process needs, so that all take the same number.
  std::vector<std::uint64_t> band_batches() const {
    const std::vector<std::uint64_t>& start = potential_.band_start;
    std::vector<std::uint64_t> batches(std::size_t(potential_.bands()), 0);
    for (std::size_t b = 0; b < batches.size(); ++b)
      batches[b] = (start[b + 1] - start[b] + kBatch - 1) / kBatch;
    max_over_processes(batches);
    return batches;
  }

  // Entries order[lo, hi) of one band.
  void batch(std::uint64_t lo, std::uint64_t hi) {
    const std::size_t size = std::size_t(hi - lo);
    const std::uint32_t* order = potential_.order.data() + lo;
    best_.assign(size, 0);
    remotes_.resize(size * M);
    remote_count_.assign(size, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, 1 << 10),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t j = range.begin(); j != range.end(); ++j)
                          expand(j, order[j]);
                      });
    ask_remotes(size);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, 1 << 12),
                      [&](const tbb::blocked_range<std::size_t>& range) {
                        for (std::size_t j = range.begin(); j != range.end(); ++j)
                          if (remote_count_[j] != 0) finish(j, order[j]);
                      });
  }

  // Entry j of the batch, local index `slot`: solved at once when every successor is in this
  // process's slices, else the others asked for.
  void expand(std::size_t j, std::uint64_t slot) {
    Stones x[2 * kMaxPits];
    moves_.index().unrank(slices_[n_].begin[w_.rank] + slot, n_, x);
    const Ring base = Moves::board_of(x);
    int over;
    if (Moves::over(base, &over)) {
      store_value(values_[slot], over);
      return;
    }
    int best = -kMaxTableStones - 1, remote = 0;
    Ring child;
    for (unsigned pits = Moves::movable(base); pits != 0; pits &= pits - 1) {
      const auto played = Moves::play(base, __builtin_ctz(pits), n_, child);
      const Request request =
          slices_[played.child_n].request(moves_.rank(child, played.child_n), played.child_n);
      if (int(request.owner) != w_.rank) {
        remotes_[j * M + remote++] = {request, 0, std::int8_t(played.gain), played.again};
        continue;
      }
      const int v = local_value(levels_, n_, request.key);
      if (v == kUnknownValue) throw std::logic_error("distributed build: an unsolved successor");
      best = std::max(best, future_after_move(played.gain, played.again, v));
    }
    best_[j] = std::int16_t(best);
    remote_count_[j] = std::uint8_t(remote);
    if (remote == 0) store_value(values_[slot], best);
  }

  // The batch's successors held by other processes, asked for: back_[r.place] answers remote r.
  void ask_remotes(std::size_t size) {
    requests_.clear();
    for (std::size_t j = 0; j < size; ++j)
      for (int k = 0; k < remote_count_[j]; ++k) {
        Remote& r = remotes_[j * M + k];
        r.place = std::uint32_t(requests_.size());
        requests_.push_back(r.request);
      }
    exchange_.run(requests_, back_, [&](std::uint64_t key) {
      const int v = local_value(levels_, n_, key);
      if (v == kUnknownValue)
        throw std::logic_error("distributed build: asked for an unsolved value");
      return v;
    });
  }

  // Entry j of the batch, local index `slot`, solved from its remote successors' answers.
  void finish(std::size_t j, std::uint64_t slot) {
    int best = best_[j];
    for (int k = 0; k < remote_count_[j]; ++k) {
      const Remote& r = remotes_[j * M + k];
      const int child = back_[r.place];
      best = std::max(best, future_after_move(r.gain, r.again, child));
    }
    store_value(values_[slot], best);
  }

  World w_;
  Moves moves_;
  LevelTables& levels_;
  const std::vector<Slices>& slices_;
  Exchange& exchange_;
  int n_ = 0;
  std::int8_t* values_ = nullptr;
  PotentialOrder potential_;
  std::vector<std::uint8_t> remote_count_;
  std::vector<std::int16_t> best_;  // the best of the successors read locally
  std::vector<std::int8_t> back_;
  std::vector<Remote> remotes_;
  std::vector<Request> requests_;
};

}  // namespace kalah
