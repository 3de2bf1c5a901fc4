// The engine with the database plugged in never loses value; the solver re-derives stored values.
#include <gtest/gtest.h>

#include "solver/answers/engine_check.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/reference.hpp"

namespace kalah {
namespace {

TEST(EngineWithDatabase, NeverLosesValueOnRandomPositions) {
  for (Rules rules : test::registered_rules()) {
    const TableId t{rules, 6};
    test::TempDir dir("engine_db");
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {t, 9, 2});
    Probe probe(store, t, 16u << 20);
    EngineCheckOptions o;
    o.positions = 2000;
    o.max_depth = 2;
    const EngineCheckReport r = check_engine(rules, probe, o);
    ASSERT_EQ(r.rows.size(), 4u);
    bool alone_lost = false;
    for (const auto& row : r.rows) {
      EXPECT_EQ(row.positions, 2000);
      if (row.with_db) {
        EXPECT_EQ(row.margin_losses, 0) << rules_name(rules) << " depth " << row.depth;
        EXPECT_EQ(row.outcome_losses, 0);
      } else {
        alone_lost = alone_lost || row.margin_losses > 0;
      }
    }
    // The check can fail: the engine alone at depth 1-2 does give value away.
    EXPECT_TRUE(alone_lost) << rules_name(rules);
  }
}

TEST(EngineWithDatabase, SolverWithoutDatabaseAgreesWithStoredValues) {
  const TableId t{Rules::kWetherell, 6};
  test::TempDir dir("resolve");
  Store store(dir.str(), true, test::fast_store());
  build_database(store, {t, 8, 2});
  Probe probe(store, t, 16u << 20);
  const ResolveReport r = resolve_sample(t.rules, probe, 300, 8, 7);
  EXPECT_EQ(r.checked, 300);
  EXPECT_EQ(r.mismatches, 0) << (r.examples.empty() ? "" : r.examples[0]);
  EXPECT_GT(r.nodes, 300u);
}

}  // namespace
}  // namespace kalah
