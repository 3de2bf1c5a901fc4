// Queries over a built table: the 6-pit value vectors answered from the table alone, and a
// position beyond it answered by the solver and said so.
#include <gtest/gtest.h>

#include <utility>

#include "db/probe.hpp"
#include "engine/move.hpp"
#include "solver/answers/query.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/reference.hpp"
#include "tests/support/vectors.hpp"

namespace kalah {
namespace {

using test::TempDir;

// The 6-pit value vectors (all within 12 stones in pits) answered from generated databases.
TEST(Build, SixPitValueVectorsFromTheDatabase) {
  const std::pair<Rules, const char*> files[] = {
      {Rules::kWetherell, "values-wetherell.txt"},
      {Rules::kKalah, "values-kalah.txt"},
      {Rules::kKalahEmptyCapture, "values-kalah-empty-capture.txt"}};
  for (auto [rules, file] : files) {
    std::vector<std::pair<Position, int>> six;
    int max_stones = 0;
    for (const auto& row : test::read_vector_file(file)) {
      ASSERT_EQ(row.size(), 3u);
      const Position p = parse_position(row[0] + " " + row[1]);
      if (p.m != 6) continue;
      six.emplace_back(p, std::stoi(row[2]));
      max_stones = std::max(max_stones, p.pit_stones());
    }
    ASSERT_GE(six.size(), 50u) << file;
    TempDir dir("build_vectors");
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {{rules, 6}, max_stones, 2});
    Probe probe(store, {rules, 6}, 16 << 20);
    for (const auto& [p, want] : six) {
      EXPECT_EQ(probe.margin(p), want) << file << ": " << to_string(p);
      const QueryAnswer a = query_position(rules, p, &probe);
      EXPECT_FALSE(a.used_solver);
      EXPECT_TRUE(a.value.exact());
      EXPECT_EQ(a.value.lower, want) << to_string(p);
    }
  }
}

TEST(Query, BeyondTheDatabaseUsesTheSolverAndSaysSo) {
  const TableId t{Rules::kWetherell, 4};
  TempDir dir("query");
  Store store(dir.str(), true, test::fast_store());
  build_database(store, {t, 4, 1});
  // The block cache on one thread, and the table resident with two search threads.
  Probe cached(store, t, 1 << 20);
  Probe resident(store, t, 0, TableLoad::kMemory);
  const Position p = parse_position("1,6,1,5/0,0,0,5 S");  // 13 stones in pits; margin 8 (vectors)
  test::ReferenceMinimax reference(Rules::kWetherell);
  for (auto [probe, threads] : {std::pair{&cached, 1}, std::pair{&resident, 2}}) {
    QuerySearchOptions options;
    options.threads = threads;
    const QueryAnswer a = query_position(Rules::kWetherell, p, probe, options);
    EXPECT_TRUE(a.used_solver);
    ASSERT_TRUE(a.value.exact());
    EXPECT_EQ(a.value.lower, 8);
    for (const auto& m : a.moves) {
      Position c = p;
      const bool again = play_move(Rules::kWetherell, c, m.pit);
      const int want = again ? reference.margin(c) : -reference.margin(c);
      ASSERT_TRUE(m.value.exact());
      EXPECT_EQ(m.value.lower, want) << "pit " << m.pit << ", threads " << threads;
      EXPECT_EQ(m.best, want == 8);
    }
  }
}

}  // namespace
}  // namespace kalah
