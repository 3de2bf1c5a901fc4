// The node loop shared by the engine and the solver: the lazy move queue, the fail-soft window and
// the loop that stops when a move ends the node or falls under a floor.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "engine/node_loop.hpp"

namespace kalah {
namespace {

// Random moves: distinct pits with priorities drawn from a small range (ties frequent).
std::vector<std::pair<int, int>> random_moves(std::mt19937_64& rng) {  // (pit, priority)
  std::vector<int> pits(16);
  for (int i = 0; i < 16; ++i) pits[i] = i;
  std::shuffle(pits.begin(), pits.end(), rng);
  std::vector<std::pair<int, int>> moves;
  const int n = int(rng() % 17);
  for (int i = 0; i < n; ++i)
    moves.push_back({pits[i], int(rng() % 7) - 3 + (rng() % 4 == 0 ? (1 << 25) : 0)});
  return moves;
}

MoveQueue<16> queue_of(const std::vector<std::pair<int, int>>& moves) {
  MoveQueue<16> queue;
  for (auto [pit, priority] : moves) queue.push(move_key(priority, pit));
  return queue;
}

// Taking every move gives them by priority, higher first, ties by the higher pit, whatever the
// order they were pushed in.
TEST(NodeLoop, QueueTakesByPriorityThenHigherPit) {
  std::mt19937_64 rng(31);
  for (int round = 0; round < 2000; ++round) {
    const auto moves = random_moves(rng);
    MoveQueue<16> queue = queue_of(moves);
    ASSERT_EQ(queue.size(), int(moves.size()));
    auto want = moves;
    std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
      return std::pair(a.second, a.first) > std::pair(b.second, b.first);
    });
    for (int k = 0; k < queue.size(); ++k) {
      ASSERT_EQ(queue.take(k), want[k].first) << "move " << k << " of " << queue.size();
      ASSERT_EQ(queue.pit_at(k), want[k].first);
      ASSERT_EQ(queue.key_at(k), move_key(want[k].second, want[k].first));
    }
  }
}

// A node that stops taking keeps the untaken moves: pit_at names each remaining one once.
TEST(NodeLoop, UntakenMovesStayInTheQueue) {
  std::mt19937_64 rng(32);
  for (int round = 0; round < 500; ++round) {
    const auto moves = random_moves(rng);
    MoveQueue<16> queue = queue_of(moves);
    const int taken = queue.size() == 0 ? 0 : int(rng() % queue.size());
    std::vector<int> seen;
    for (int k = 0; k < taken; ++k) seen.push_back(queue.take(k));
    for (int j = taken; j < queue.size(); ++j) seen.push_back(queue.pit_at(j));
    std::vector<int> all;
    for (auto [pit, priority] : moves) all.push_back(pit);
    std::sort(seen.begin(), seen.end());
    std::sort(all.begin(), all.end());
    ASSERT_EQ(seen, all);
  }
}

// raise keeps the best value and its move, lifts alpha above it, and cuts off exactly at beta.
TEST(NodeLoop, WindowRaisesBestAndAlphaAndCutsAtBeta) {
  Window w{.alpha = 0, .beta = 10, .best = -100};
  EXPECT_FALSE(w.raise(-5, 3));  // a best below alpha: alpha stays
  EXPECT_EQ(w.best, -5);
  EXPECT_EQ(w.best_pit, 3);
  EXPECT_EQ(w.alpha, 0);
  EXPECT_FALSE(w.raise(-7, 4));  // worse: nothing changes
  EXPECT_EQ(w.best, -5);
  EXPECT_EQ(w.best_pit, 3);
  EXPECT_FALSE(w.raise(-5, 5));  // equal: the first move stays
  EXPECT_EQ(w.best_pit, 3);
  EXPECT_FALSE(w.raise(4, 1));  // inside the window: alpha rises
  EXPECT_EQ(w.alpha, 4);
  EXPECT_EQ(w.best_pit, 1);
  EXPECT_FALSE(w.raise(9, 2));
  EXPECT_EQ(w.alpha, 9);
  EXPECT_TRUE(w.raise(10, 0));  // at beta: cut off
  EXPECT_EQ(w.best, 10);
  EXPECT_EQ(w.best_pit, 0);
}

// The loop visits moves in the queue's order until one ends the node (its visit returns true),
// or the next move's key is under the floor, and leaves k at the number visited.
TEST(NodeLoop, LoopStopsAtTheEndOfTheNodeOrTheFloor) {
  std::mt19937_64 rng(33);
  for (int round = 0; round < 2000; ++round) {
    const auto moves = random_moves(rng);
    MoveQueue<16> queue = queue_of(moves), order = queue_of(moves);
    bool ends[16];
    for (auto [pit, priority] : moves) ends[pit] = rng() % 5 == 0;
    const int floor = rng() % 2 == 0 ? kNoFloor : move_key(int(rng() % 7) - 3, 0);
    std::vector<int> in_order;
    for (int k = 0; k < order.size(); ++k) in_order.push_back(order.take(k));

    std::vector<int> visited;
    int k = 0;
    const bool ended = search_in_order(
        queue, k,
        [&](int pit) {
          visited.push_back(pit);
          return ends[pit];
        },
        floor);

    // The expected run: in order, while at or above the floor, up to the first that ends it.
    std::vector<int> want;
    bool want_end = false;
    for (int i = 0; i < int(in_order.size()) && order.key_at(i) >= floor; ++i) {
      want.push_back(in_order[i]);
      if (ends[in_order[i]]) {
        want_end = true;
        break;
      }
    }
    ASSERT_EQ(visited, want);
    ASSERT_EQ(ended, want_end);
    ASSERT_EQ(k, int(want.size()));
  }
}

}  // namespace
}  // namespace kalah
