// The distributed solve's messages: tests from process 0 to the others, their bounds back.
#include "solver/exhaustive/mpi/distributed_solve.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/move.hpp"
#include "engine/stopwatch.hpp"
#include "solver/exhaustive/mpi/root_split.hpp"
#include "solver/mpi/mpi_world.hpp"

namespace kalah {

namespace {

enum Tag : int { kTest = 1, kBound = 2, kOver = 3 };

// A test: the root move's pit, beta on the child's margin, milliseconds left (-1: no limit).
struct TestMessage {
  std::int64_t pit, beta, millis_left;
};
// Its answer: the pit, stopped, at_least, the bound, the nodes and expanded nodes it took.
struct BoundMessage {
  std::int64_t pit, stopped, at_least, bound, nodes, expanded;
};

}  // namespace

SolveResult coordinate_split_solve(
    Rules rules, const Position& p, int guess, const SolveResult* resume, int processes,
    double max_seconds,
    const std::function<void(const SolveResult&, const std::string&)>& on_proven) {
  const auto start = std::chrono::steady_clock::now();
  RootSplit split(rules, p, guess, resume);
  std::vector<std::optional<RootSplit::Job>> running(static_cast<std::size_t>(processes));
  int busy = 0;
  bool out_of_time = false;
  std::uint64_t nodes = 0, expanded = 0;
  while (true) {
    const double left = max_seconds > 0 ? max_seconds - seconds_since(start) : 1;
    out_of_time = out_of_time || left <= 0;
    for (int w = 1; w < processes && !out_of_time; ++w) {
      if (running[std::size_t(w)]) continue;
      std::optional<RootSplit::Job> job = split.next(w);
      if (!job) break;
      const TestMessage m{job->pit, job->beta,
                          max_seconds > 0 ? std::int64_t(left * 1000) + 1 : -1};
      send_bytes(&m, sizeof m, w, kTest);
      running[std::size_t(w)] = std::move(job);
      ++busy;
    }
    if (busy == 0) break;  // done, or out of time with every test back
    const int from = wait_for_message(kAnySource, kBound).source;
    BoundMessage b;
    recv_bytes(&b, sizeof b, from, kBound);
    const RootSplit::Job job = *running[std::size_t(from)];
    running[std::size_t(from)].reset();
    --busy;
    nodes += std::uint64_t(b.nodes);
    expanded += std::uint64_t(b.expanded);
    TestResult t;
    t.stopped = b.stopped != 0;
    t.at_least = b.at_least != 0;
    t.bound = int(b.bound);
    split.record(job, t);
    out_of_time = out_of_time || t.stopped;
    if (on_proven && !t.stopped) {
      SolveResult so_far = split.result();
      so_far.nodes = nodes;
      so_far.seconds = seconds_since(start);
      on_proven(so_far, split.status());
    }
  }
  for (int w = 1; w < processes; ++w) send_bytes(nullptr, 0, w, kOver);
  SolveResult r = split.result();
  r.nodes = nodes;
  r.expanded = expanded;
  r.seconds = seconds_since(start);
  return r;
}

void serve_split_tests(Rules rules, const Position& p, SolveOptions opt) {
  while (true) {
    if (wait_for_message(0, kAnyTag).tag == kOver) {
      recv_bytes(nullptr, 0, 0, kOver);
      return;
    }
    TestMessage m;
    recv_bytes(&m, sizeof m, 0, kTest);
    Position c = p;
    play_move(rules, c, int(m.pit));
    opt.max_seconds = m.millis_left < 0 ? 0 : std::max(1e-3, double(m.millis_left) / 1000);
    const TestResult t = solve_test(rules, c, int(m.beta), opt);
    const BoundMessage b{
        m.pit, t.stopped, t.at_least, t.bound, std::int64_t(t.nodes), std::int64_t(t.expanded)};
    send_bytes(&b, sizeof b, 0, kBound);
  }
}

}  // namespace kalah
