// A stopped solve resumed from its bounds and TT (also through a checkpoint file), and the root
// split into tests (RootSplit) against solve().
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "solver/exhaustive/mpi/root_split.hpp"
#include "solver/exhaustive/solve.hpp"
#include "solver/session/checkpoint.hpp"
#include "solver/session/checkpoint_writer.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

constexpr std::size_t kTTBytes = std::size_t(16) << 20;

SolveOptions plain() {
  SolveOptions o;
  o.memo_stones = 0;  // the memo is rebuilt by every solve: the resumed work is the TT's
  o.tt_bytes = kTTBytes;
  o.threads = 1;
  return o;
}

// The solve of p stopped after its `tests`-th narrowing of a root bound (on_proven), in `tt`.
SolveResult stopped_solve(Rules rules, const Position& p, SolveTT& tt, int tests) {
  std::atomic<bool> cancel{false};
  int seen = 0;
  SolveOptions o = plain();
  o.tt = &tt;
  o.cancel = &cancel;
  o.on_proven = [&](const SolveResult&) {
    if (++seen == tests) cancel = true;
  };
  return solve(rules, p, o);
}

TEST(SolveResume, StoppedSolveResumesToTheSameAnswerWithLessWork) {
  for (Rules rules : {Rules::kKalah, Rules::kWetherell}) {
    const Position p = start_position(rules == Rules::kKalah ? 6 : 5, 3);
    const SolveResult fresh = solve(rules, p, plain());
    ASSERT_TRUE(fresh.complete);
    for (int tests : {1, 3}) {
      SolveTT tt(kTTBytes);
      const SolveResult first = stopped_solve(rules, p, tt, tests);
      ASSERT_FALSE(first.complete) << rules_name(rules) << " finished within " << tests;
      EXPECT_LE(first.lower, fresh.margin);
      EXPECT_GE(first.upper, fresh.margin);
      SolveOptions o = plain();
      o.tt = &tt;
      o.resume = &first;
      const SolveResult resumed = solve(rules, p, o);
      ASSERT_TRUE(resumed.complete);
      EXPECT_EQ(resumed.margin, fresh.margin) << rules_name(rules);
      EXPECT_EQ(resumed.best_moves, fresh.best_moves) << rules_name(rules);
      EXPECT_LT(resumed.nodes, fresh.nodes) << rules_name(rules) << " after " << tests;
      // The bounds alone (a fresh TT) give the same answer.
      o.tt = nullptr;
      const SolveResult bounds_only = solve(rules, p, o);
      EXPECT_EQ(bounds_only.margin, fresh.margin);
      EXPECT_EQ(bounds_only.best_moves, fresh.best_moves);
    }
  }
}

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string(name) + "-" + std::to_string(::getpid())))
      .string();
}

TEST(SolveResume, CheckpointFileRoundTripsBoundsAndTable) {
  const Rules rules = Rules::kKalah;
  const Position p = start_position(6, 3);
  SolveTT tt(kTTBytes);
  SolveCheckpoint c;
  c.rules = rules;
  c.position = p;
  c.proven = stopped_solve(rules, p, tt, 2);
  c.runs = 1;
  c.seconds = 1.5;
  const std::string path = temp_path("kalah-checkpoint");
  save_checkpoint(path, c, &tt);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  SolveCheckpoint back = load_checkpoint(path);
  EXPECT_EQ(back.position, p);
  EXPECT_EQ(back.rules, rules);
  EXPECT_TRUE(back.has_tt);
  EXPECT_EQ(back.tt_bytes, tt.bytes());
  EXPECT_EQ(back.proven.lower, c.proven.lower);
  EXPECT_EQ(back.proven.upper, c.proven.upper);
  ASSERT_EQ(back.proven.moves.size(), c.proven.moves.size());
  for (std::size_t i = 0; i < c.proven.moves.size(); ++i) {
    EXPECT_EQ(back.proven.moves[i].lower, c.proven.moves[i].lower);
    EXPECT_EQ(back.proven.moves[i].upper, c.proven.moves[i].upper);
  }
  SolveTT loaded(back.tt_bytes);
  load_checkpoint_tt(path, loaded);
  SolveOptions o = plain();
  o.tt = &loaded;
  o.resume = &back.proven;
  const SolveResult resumed = solve(rules, p, o);
  const SolveResult fresh = solve(rules, p, plain());
  EXPECT_EQ(resumed.margin, fresh.margin);
  EXPECT_EQ(resumed.best_moves, fresh.best_moves);
  EXPECT_LT(resumed.nodes, fresh.nodes);

  // A flipped byte in the TT, a cut file, another file: each a CheckpointError.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-100, std::ios::end);
    f.put('\x5a');
  }
  SolveTT other(back.tt_bytes);
  EXPECT_THROW(load_checkpoint_tt(path, other), CheckpointError);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
  EXPECT_THROW(load_checkpoint(path), CheckpointError);
  std::ofstream(path) << "not a checkpoint\n";
  EXPECT_THROW(load_checkpoint(path), CheckpointError);
  std::filesystem::remove(path);
  EXPECT_THROW(load_checkpoint(path), CheckpointError);
}

// A checkpoint written before anything is proven (a writer's periodic write, as a run killed in
// its first test leaves it) holds bounds the margin lies within, and resumes to the same answer.
TEST(SolveResume, ANewCheckpointClaimsNothing) {
  const Rules rules = Rules::kWetherell;
  const Position p = parse_position("2,0,1,2,1,3,5/0,2,1,1,2,0,6 N");
  const std::string path = temp_path("kalah-checkpoint-new");
  {
    CheckpointWriter writer(path, new_checkpoint(rules, p, 0), nullptr, 0.01);
    for (int i = 0; i < 500 && !std::filesystem::exists(path); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  SolveCheckpoint c = load_checkpoint(path);
  std::filesystem::remove(path);
  const SolveResult fresh = solve(rules, p, plain());
  EXPECT_EQ(c.proven.lower, p.kalah_difference() - p.pit_stones());
  EXPECT_EQ(c.proven.upper, p.kalah_difference() + p.pit_stones());
  EXPECT_TRUE(c.proven.moves.empty());
  SolveOptions o = plain();
  o.resume = &c.proven;
  const SolveResult resumed = solve(rules, p, o);
  EXPECT_EQ(resumed.margin, fresh.margin);
  EXPECT_EQ(resumed.best_moves, fresh.best_moves);
}

// A write that fails throws naming the file and leaves the previous checkpoint byte for byte:
// when a directory holds the temporary file's name (left where it was), and when the write is cut
// short (its temporary file removed).
TEST(SolveResume, AFailedCheckpointWriteKeepsThePreviousOne) {
  const Position p = start_position(4, 2);
  SolveTT tt(1 << 20);
  SolveCheckpoint c;
  c.position = p;
  c.proven = solve(Rules::kWetherell, p, plain());
  const std::string path = temp_path("kalah-checkpoint-kept");
  save_checkpoint(path, c, &tt);
  std::ifstream in(path, std::ios::binary);
  const std::string before{std::istreambuf_iterator<char>(in), {}};
  const std::string tmp = checkpoint_temporary(path);
  std::filesystem::create_directory(tmp);
  c.runs = 7;
  try {
    save_checkpoint(path, c, &tt);
    ADD_FAILURE() << "the write did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write checkpoint " + path), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("previous checkpoint"), std::string::npos) << e.what();
  }
  std::ifstream again(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), before);
  EXPECT_TRUE(std::filesystem::is_directory(tmp));
  std::filesystem::remove(tmp);

  // A write cut short (a file size limit below the TT's, as a full disk would): the
  // temporary file is removed as well.
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 64 << 10;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_THROW(save_checkpoint(path, c, &tt), std::runtime_error);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, old_handler);
  std::ifstream last(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(last), {}), before);
  EXPECT_FALSE(std::filesystem::exists(tmp));
  std::filesystem::remove(path);
}

// What `kalah solve --checkpoint` checks before it searches: the directory, the name, the room
// for a write's temporary copy of the TT.
TEST(SolveResume, CheckpointPlaceIsCheckedBeforeTheSolve) {
  const std::string dir = temp_path("kalah-checkpoint-dir");
  std::filesystem::create_directory(dir);
  const auto error = [](const std::string& path, std::size_t bytes) -> std::string {
    try {
      check_checkpoint_writable(path, bytes);
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  };
  EXPECT_EQ(error(dir + "/a.ckpt", 16 << 20), "");
  EXPECT_NE(error(dir + "/none/a.ckpt", 0).find("directory " + dir + "/none does not exist"),
            std::string::npos);
  EXPECT_NE(error(dir, 0).find("is a directory"), std::string::npos);
  std::ofstream(dir + "/file") << "x";
  EXPECT_NE(error(dir + "/file/a.ckpt", 0).find("is not a directory"), std::string::npos);
  // No disk has 2^62 bytes free.
  const std::string full = error(dir + "/a.ckpt", std::size_t(1) << 62);
  EXPECT_NE(full.find("cannot write checkpoint " + dir + "/a.ckpt: disk full for it ("),
            std::string::npos)
      << full;
  std::filesystem::remove_all(dir);
}

// RootSplit driven by `workers` workers taking turns, each test run by solve_test with the
// worker's own TT: the margin and best moves of solve().
SolveResult split_solve(Rules rules, const Position& p, int workers, const SolveResult* resume) {
  SolveOptions o = plain();
  const int guess = solve_guess(rules, p, o);
  RootSplit split(rules, p, guess, resume);
  std::vector<std::unique_ptr<SolveTT>> tts;
  for (int w = 0; w < workers; ++w) tts.push_back(std::make_unique<SolveTT>(1 << 20));
  while (!split.done()) {
    std::vector<std::pair<int, RootSplit::Job>> round;
    for (int w = 0; w < workers; ++w)
      if (auto job = split.next(w)) round.emplace_back(w, *job);
    if (round.empty()) {
      ADD_FAILURE() << "no test to run before the split is done";
      break;
    }
    for (const auto& [w, job] : round) {
      o.tt = tts[std::size_t(w)].get();
      split.record(job, solve_test(rules, job.child, job.beta, o));
    }
  }
  return split.result();
}

TEST(RootSplit, EqualsSolveOnRandomPositions) {
  std::mt19937_64 rng(31);
  for (Rules rules : test::registered_rules()) {
    for (int i = 0; i < 12; ++i) {
      const Position p = test::random_position(rules, 4, 3, int(rng() % 6), rng);
      if (is_over(rules, p)) continue;
      const SolveResult want = solve(rules, p, plain());
      for (int workers : {1, 3}) {
        const SolveResult got = split_solve(rules, p, workers, nullptr);
        ASSERT_TRUE(got.complete);
        EXPECT_EQ(got.margin, want.margin) << to_string(p) << " " << rules_name(rules);
        EXPECT_EQ(got.best_moves, want.best_moves) << to_string(p) << " " << rules_name(rules);
        for (const MoveBound& m : got.moves) {
          // Each move's bounds hold its margin: exact for the best moves.
          Position c = p;
          const bool again = play_move(rules, c, m.pit);
          const int v = again ? solve(rules, c, plain()).margin : -solve(rules, c, plain()).margin;
          EXPECT_LE(m.lower, v);
          EXPECT_GE(m.upper, v);
        }
      }
    }
  }
}

TEST(RootSplit, ResumesFromAStoppedSolvesBounds) {
  const Rules rules = Rules::kWetherell;
  const Position p = start_position(5, 3);
  SolveTT tt(kTTBytes);
  const SolveResult first = stopped_solve(rules, p, tt, 2);
  const SolveResult want = solve(rules, p, plain());
  const SolveResult got = split_solve(rules, p, 2, &first);
  EXPECT_EQ(got.margin, want.margin);
  EXPECT_EQ(got.best_moves, want.best_moves);
}

}  // namespace
}  // namespace kalah
