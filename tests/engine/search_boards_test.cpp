// The boards (engine/board.hpp) agree with play_move, and both search paths agree.
#include <gtest/gtest.h>

#include <random>

#include "engine/byte_array_board.hpp"
#include "engine/register_board.hpp"
#include "engine/search.hpp"
#include "engine/wide_board.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

// A random position of m pits a side with `total` stones spread over pits and kalahs, including
// pits big enough to lap the board.
Position scattered(int m, int total, std::mt19937_64& rng) {
  Position p;
  p.m = m;
  p.mover = rng() % 2 ? Side::kSouth : Side::kNorth;
  for (int s = 0; s < total; ++s) ++p.cell[rng() % (2 * m + 2)];
  if (rng() % 4 == 0) {  // pile stones into one pit
    const int pit = int(rng() % m);
    for (int c = 0; c <= 2 * m + 1; ++c)
      if (c != pit && c != m && c != 2 * m + 1) p.cell[pit] += p.cell[c], p.cell[c] = 0;
  }
  return p;
}

// Board B, built from p and moved through pit, must equal play_move's result in every observable.
template <class R, class B>
void expect_same_move(const Position& p, int pit) {
  Position q = p;
  const bool again = play_move<R>(q, pit);
  B b(p);
  ASSERT_EQ(R::apply(b, pit), again) << to_string(p) << " pit " << pit + 1;
  if (!again) b.flip();
  ASSERT_EQ(b.m(), q.m);
  for (int i = 0; i < q.m; ++i) ASSERT_EQ(b.cell(i), q.own_pit(i)) << to_string(p) << " " << pit;
  ASSERT_EQ(b.kalah_difference(), q.kalah_difference()) << to_string(p) << " pit " << pit + 1;
  ASSERT_EQ(b.own_empty(), q.own_pit_stones() == 0);
  ASSERT_EQ(b.opp_empty(), q.opp_pit_stones() == 0);
  ASSERT_EQ(b.final_margin(), final_margin(q));
  // The key covers the pits only: moving stones between the kalahs keeps it.
  Position k = q;
  if (k.own_kalah() > 0) --k.own_kalah(), ++k.opp_kalah();
  ASSERT_EQ(B(k).key(), b.key());
  ASSERT_NE(b.key(), 0u);
}

template <class R, int M>
void check_boards(std::mt19937_64& rng, int& moves) {
  for (int i = 0; i < 150; ++i) {
    const Position p = scattered(M, int(rng() % 256), rng);
    for (int pit = 0; pit < M; ++pit) {
      if (p.own_pit(pit) == 0) continue;
      expect_same_move<R, RegisterBoard<M>>(p, pit);
      expect_same_move<R, ByteArrayBoard<M>>(p, pit);
      expect_same_move<R, ByteArrayBoard<>>(p, pit);
      expect_same_move<R, WideBoard>(p, pit);
      ++moves;
    }
  }
}

template <class R>
void check_all_sizes(std::mt19937_64& rng, int& moves) {
  check_boards<R, 1>(rng, moves);
  check_boards<R, 2>(rng, moves);
  check_boards<R, 3>(rng, moves);
  check_boards<R, 4>(rng, moves);
  check_boards<R, 5>(rng, moves);
  check_boards<R, 6>(rng, moves);
  check_boards<R, 7>(rng, moves);
}

TEST(SearchBoards, RegisterByteArrayAndWideBoardsMoveLikePlayMove) {
  std::mt19937_64 rng(99);
  int moves = 0;
  for (Rules rules : test::registered_rules())
    with_rules(rules, [&](auto policy) { check_all_sizes<decltype(policy)>(rng, moves); });
  EXPECT_GT(moves, 8000);
}

TEST(SearchBoards, WideBoardsHandleLargeBoardsAndCounts) {
  std::mt19937_64 rng(7);
  int moves = 0;
  for (int i = 0; i < 300; ++i) {
    const int m = 8 + int(rng() % 5);
    const Position p = scattered(m, int(rng() % 3000), rng);
    for (int pit = 0; pit < m; ++pit) {
      if (p.own_pit(pit) == 0) continue;
      expect_same_move<Wetherell, WideBoard>(p, pit);
      expect_same_move<KalahRules, WideBoard>(p, pit);
      expect_same_move<KalahEmptyCapture, WideBoard>(p, pit);
      ++moves;
    }
  }
  EXPECT_GT(moves, 1000);
}

// An oracle that knows nothing: it sends the search down its general (WideBoard) path.
class NoOracle : public ExactOracle {
 public:
  std::optional<int> future(const Position&) override { return std::nullopt; }
};

TEST(SearchBoards, BothSearchPathsGiveTheSameValuesAndMoves) {
  std::mt19937_64 rng(31337);
  NoOracle none;
  for (Rules rules : test::registered_rules()) {
    for (int i = 0; i < 40; ++i) {
      const Position p = test::random_position(rules, 2 + int(rng() % 6), 3 + int(rng() % 4),
                                               int(rng() % 20), rng);
      const int depth = 1 + int(rng() % 7);
      SearchOptions fast, general;
      fast.randomize = general.randomize = false;
      fast.tt_bytes = general.tt_bytes = 1 << 20;
      general.oracle = &none;
      const SearchResult a = Searcher(rules, fast).search(p, {depth, 0, 0});
      const SearchResult b = Searcher(rules, general).search(p, {depth, 0, 0});
      ASSERT_EQ(a.value, b.value) << to_string(p) << " depth " << depth;
      ASSERT_EQ(a.best_pits, b.best_pits) << to_string(p) << " depth " << depth;
      ASSERT_EQ(a.exact, b.exact) << to_string(p) << " depth " << depth;
      ASSERT_EQ(a.pit, b.pit);
    }
  }
}

}  // namespace
}  // namespace kalah
