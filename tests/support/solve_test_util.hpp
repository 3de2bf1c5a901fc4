// What the solver's tests share: exact oracles backed by the reference minimax, random positions,
// small solve options, and the check of a solve's result against the minimax.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "db/db_error.hpp"
#include "engine/move.hpp"
#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"
#include "tests/support/reference.hpp"

namespace kalah::test {

inline const std::vector<Rules> kAllRules = registered_rules();

// An exact oracle backed by the reference minimax (tests/support/reference.hpp), covering positions
// with <= max stones in pits.
class ReferenceOracle : public ExactOracle {
 public:
  ReferenceOracle(Rules rules, int max) : naive_(rules) { max_stones_ = max; }
  std::optional<int> future(const Position& p) override {
    if (p.pit_stones() > max_stones_) return std::nullopt;
    ++calls;
    Position q = p;
    q.own_kalah() = q.opp_kalah() = 0;
    return naive_.margin(q);
  }
  int calls = 0;

 private:
  ReferenceMinimax naive_;
};

// ReferenceOracle's answers from any thread (under a lock) until its `limit`-th call, which throws
// DbError as a damaged block of a table would.
class FailingOracle : public ReferenceOracle {
 public:
  FailingOracle(Rules rules, int max, long limit) : ReferenceOracle(rules, max), limit_(limit) {}
  std::optional<int> future(const Position& p) override {
    std::lock_guard lock(mutex_);
    if (p.pit_stones() <= max_stones_ && calls + 1 == limit_)
      throw DbError("test table: level 8 block 2 is corrupt (injected)");
    return ReferenceOracle::future(p);
  }

 private:
  long limit_;
  std::mutex mutex_;
};

// ReferenceOracle plus a "book": it also answers the positions of `book` whatever their stones.
class BookOracle : public ReferenceOracle {
 public:
  BookOracle(Rules rules, int max, std::vector<Position> book)
      : ReferenceOracle(rules, max), naive_(rules), book_(std::move(book)) {}
  std::optional<int> future(const Position& p) override {
    for (const Position& b : book_) {
      bool same = b.m == p.m;
      for (int i = 0; same && i < p.m; ++i)
        same = b.own_pit(i) == p.own_pit(i) && b.opp_pit(i) == p.opp_pit(i);
      if (same) {
        ++book_hits;
        Position q = p;
        q.own_kalah() = q.opp_kalah() = 0;
        return naive_.margin(q);
      }
    }
    return ReferenceOracle::future(p);
  }
  int book_hits = 0;

 private:
  ReferenceMinimax naive_;
  std::vector<Position> book_;
};

// A position reached by random play from the start of (m, k), with random kalahs added.
inline Position random_position(Rules rules, int m, int k, std::mt19937_64& rng) {
  Position p = start_position(m, k, rng() % 2 ? Side::kSouth : Side::kNorth);
  const int plies = int(rng() % (2 * m * k + 2));
  for (int i = 0; i < plies && !is_over(rules, p); ++i) {
    std::vector<int> legal;
    for (int pit = 1; pit <= m; ++pit)
      if (p.own_pit(pit - 1) > 0) legal.push_back(pit);
    play_move(rules, p, legal[rng() % legal.size()]);
  }
  p.own_kalah() += Stones(rng() % 4);
  p.opp_kalah() += Stones(rng() % 4);
  return p;
}

// A position with `n` stones scattered at random over the pits and random kalahs.
inline Position scattered_position(int m, int n, std::mt19937_64& rng) {
  Position p = start_position(m, 0, rng() % 2 ? Side::kSouth : Side::kNorth);
  for (int s = 0; s < n; ++s) p.cell[(rng() % 2) * (m + 1) + rng() % m] += 1;
  p.own_kalah() = Stones(rng() % 5);
  p.opp_kalah() = Stones(rng() % 5);
  return p;
}

// A small TT (replacements get exercised) and no exact memo: the alpha-beta search does it all.
inline SolveOptions small_options() {
  SolveOptions opt;
  opt.tt_bytes = 1 << 16;
  opt.memo_stones = 0;
  return opt;
}

// Checks a complete result against the reference minimax: margin, best moves, and that the PV is a
// game of optimal moves ending at the margin.
inline void check_result(Rules rules, const Position& p, const SolveResult& r,
                         ReferenceMinimax& naive) {
  const std::string where = std::string(rules_name(rules)) + " " + to_string(p);
  ASSERT_TRUE(r.complete) << where;
  const int want = naive.margin(p);
  ASSERT_EQ(r.margin, want) << where;
  EXPECT_EQ(r.lower, want) << where;
  EXPECT_EQ(r.upper, want) << where;
  EXPECT_EQ(r.best_moves, naive.best_moves(p)) << where;
  if (!r.best_moves.empty()) {
    ASSERT_FALSE(r.pv.empty()) << where;
    EXPECT_NE(std::find(r.best_moves.begin(), r.best_moves.end(), r.pv[0]), r.best_moves.end());
  }
  // Along the PV each move keeps the value: value(child) = +-value(parent).
  Position q = p;
  int value = want;  // for q's side to move
  for (int pit : r.pv) {
    ASSERT_FALSE(is_over(rules, q)) << where;
    ASSERT_EQ(naive.move_value(q, pit), naive.margin(q)) << where << " pv move " << pit;
    const bool again = play_move(rules, q, pit);
    value = again ? value : -value;
    ASSERT_EQ(naive.margin(q), value) << where;
  }
  EXPECT_TRUE(is_over(rules, q)) << where << ": pv stops before the end";
  EXPECT_EQ(final_margin(q), value) << where;
}

}  // namespace kalah::test
