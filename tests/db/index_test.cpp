// LevelIndex: rank is a bijection onto [0, size) in lexicographic order, unrank inverts it.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "db/index.hpp"
#include "db/storage_order.hpp"
#include "engine/register_board.hpp"

namespace kalah {
namespace {

TEST(LevelIndex, SizesAreBinomials) {
  const LevelIndex idx(6, 24);
  EXPECT_EQ(idx.size(0), 1u);
  EXPECT_EQ(idx.size(1), 12u);
  EXPECT_EQ(idx.size(20), 84672315u);   // C(31, 11)
  EXPECT_EQ(idx.size(24), 417225900u);  // C(35, 11)
}

// Walks every level of small boards in order: next() visits ranks 0, 1, 2, ... and unrank agrees.
TEST(LevelIndex, ExhaustiveBijectionOnSmallBoards) {
  for (int m = 1; m <= 3; ++m) {
    const LevelIndex idx(m, 7);
    for (int n = 0; n <= 7; ++n) {
      std::vector<Stones> x(2 * m, 0), y(2 * m);
      idx.unrank(0, n, x.data());
      std::uint64_t expected = 0;
      do {
        int sum = 0;
        for (Stones v : x) sum += v;
        ASSERT_EQ(sum, n);
        ASSERT_EQ(idx.rank(x.data(), n), expected) << "m=" << m << " n=" << n;
        idx.unrank(expected, n, y.data());
        ASSERT_EQ(x, y);
        ASSERT_EQ(idx.rank(idx.position(expected, n), n), expected);
        ++expected;
      } while (idx.next(x.data()));
      EXPECT_EQ(expected, idx.size(n)) << "m=" << m << " n=" << n;
    }
  }
}

TEST(LevelIndex, SignificanceOrderPutsPitsNearTheKalahsFirst) {
  const LevelIndex idx(3, 5);
  // Cells: own 1..3, opponent 1..3. Rank 0 keeps every stone in the opponent's pit 1, the last
  // rank every stone in own pit 3; one stone moved from own pit 3 to opponent's pit 3 is next.
  const Stones first[] = {0, 0, 0, 5, 0, 0}, last[] = {0, 0, 5, 0, 0, 0},
               before_last[] = {0, 0, 4, 0, 0, 1};
  EXPECT_EQ(idx.rank(first, 5), 0u);
  EXPECT_EQ(idx.rank(last, 5), idx.size(5) - 1);
  EXPECT_EQ(idx.rank(before_last, 5), idx.size(5) - 2);
}

// The generator's ranking of a board (cells at compile-time offsets, pairs of cells a lookup)
// equals rank() on every board size it serves, at the first, a middle and the last rank.
TEST(LevelIndex, BoardRankEqualsRank) {
  auto check = [](auto pits, int n_max) {
    constexpr int M = decltype(pits)::value;
    const LevelIndex idx(M, n_max);
    ASSERT_TRUE(idx.ranks_by_pairs()) << "m=" << M;
    for (int n : {0, 1, n_max / 2, n_max}) {
      std::vector<Stones> x(2 * M);
      for (std::uint64_t r : {std::uint64_t(0), idx.size(n) / 3, idx.size(n) - 1}) {
        idx.unrank(r, n, x.data());
        const RegisterBoard<M> board(position_of_cells(M, x.data()));
        EXPECT_EQ(idx.rank_board<M>(board.cells(), n), r) << "m=" << M << " n=" << n;
      }
    }
  };
  check(std::integral_constant<int, 1>{}, 40);
  check(std::integral_constant<int, 3>{}, 20);
  check(std::integral_constant<int, 4>{}, 20);
  check(std::integral_constant<int, 6>{}, 31);
  check(std::integral_constant<int, 7>{}, 20);
}

TEST(LevelIndex, RankOfPositionUsesSideToMoveFirst) {
  const LevelIndex idx(2, 10);
  const Position p = parse_position("1,2,9/3,0,4 N");  // N to move: cells are 3,0 then 1,2
  const Stones x[] = {3, 0, 1, 2};
  EXPECT_EQ(idx.rank(p, 6), idx.rank(x, 6));
}

// Walking one order (StorageOrder) and ranking in another (LevelIndex) from the previous rank,
// recomputing only the significances up to the most significant changed cell, gives rank() at
// every step; next_changed() names a significance above which no cell changed.
TEST(LevelIndex, RankUpdatedAlongAnotherOrderEqualsRank) {
  for (int m : {1, 2, 3}) {
    const LevelIndex index(m, 9);
    const StorageOrder order(m, 9);
    const int cells = 2 * m;
    int index_significance[2 * kMaxPits], reach[2 * kMaxPits];
    for (int k = 0; k < cells; ++k) index_significance[index.significance_cell(k)] = k;
    for (int p = cells - 1, most = 0; p >= 0; --p)
      reach[p] = most = std::max(most, index_significance[order.significance_cell(p)]);
    for (int n : {0, 1, 5, 9}) {
      std::vector<Stones> x(cells, 0), before(cells, 0);
      order.unrank(0, n, x.data());
      std::uint64_t sums[2 * kMaxPits + 1] = {};
      int k = cells - 1;
      std::uint64_t steps = 0;
      for (;;) {
        ASSERT_EQ(index.rank_update(x.data(), n, k, sums), index.rank(x.data(), n))
            << "m " << m << " n " << n << " step " << steps;
        before = x;
        const int changed = order.next_changed(x.data());
        ++steps;
        if (changed < 0) break;
        for (int p = 0; p < changed; ++p)
          ASSERT_EQ(x[order.significance_cell(p)], before[order.significance_cell(p)]);
        k = reach[changed];
      }
      EXPECT_EQ(steps, order.size(n));
    }
  }
}

}  // namespace
}  // namespace kalah
