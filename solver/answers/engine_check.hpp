// Checks the play-time engine and the solver against the database's exact values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/probe.hpp"

namespace kalah {

struct EngineCheckOptions {
  int positions = 1000;  // random positions inside the database
  int max_depth = 6;     // engine depths 1..max_depth are checked
  std::uint64_t seed = 1;
  std::size_t tt_bytes = 16u << 20;
  std::function<void(const std::string& step, std::uint64_t done, std::uint64_t total)> progress;
};

// One engine configuration (a depth, with or without the database at its leaves).
struct EngineCheckRow {
  int depth = 0;
  bool with_db = false;
  int positions = 0;
  int margin_losses = 0;      // chosen move's exact margin below the best move's
  int outcome_losses = 0;     // chosen move's outcome worse (win -> draw/loss, draw -> loss)
  long long margin_lost = 0;  // total margin given away
};

struct EngineCheckReport {
  std::vector<EngineCheckRow> rows;
  std::vector<std::string> examples;  // a few positions where a move lost value, with db plugged in
};

// Draws positions uniformly from the levels of the probe's table (kalahs empty), then for each
// depth lets the engine choose (deterministically, lowest pit among equals) without and with the
// probe as its oracle, and scores the choice with the exact values.
EngineCheckReport check_engine(Rules rules, Probe& probe, const EngineCheckOptions& options);

struct ResolveReport {
  int checked = 0, mismatches = 0;
  std::uint64_t nodes = 0;
  double seconds = 0;
  std::vector<std::string> examples;  // "POSITION database D solver S"
};

// Re-solves `count` random entries with at most max_stones stones in pits by the exhaustive
// solver without any database and compares with the stored values (catches generator bugs).
ResolveReport resolve_sample(
    Rules rules, Probe& probe, int count, int max_stones, std::uint64_t seed,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace kalah
