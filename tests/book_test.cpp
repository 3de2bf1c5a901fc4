// The opening book: built through the solver, answers its positions instantly, and is checked.
#include <gtest/gtest.h>

#include "answers/book.hpp"
#include "answers/query.hpp"
#include "db_test_util.hpp"
#include "reference.hpp"
#include "retrograde/build.hpp"

namespace kalah {
namespace {

TEST(Book, StartPositionsAnsweredFromTheBookMatchTheSolver) {
  for (Rules rules : test::registered_rules()) {
    const TableId t{rules, 4};
    const Position start = start_position(4, 2);
    test::TempDir dir("book");
    Store store(dir.str(), true, test::fast_store());
    build_database(store, {t, 6, 2});
    BookReport rep;
    {
      Probe probe(store, t, 1 << 20);
      rep = build_book(rules, store, probe, start, 2, {});
    }
    EXPECT_GT(rep.stored, 3);
    EXPECT_EQ(rep.unsolved, 0);
    EXPECT_EQ(std::uint64_t(rep.stored), store.book_size(t).entries);

    Probe probe(store, t, 1 << 20);
    EXPECT_TRUE(probe.answers_beyond());
    const SolveResult plain = solve(rules, start, {});
    ASSERT_TRUE(plain.complete);
    EXPECT_EQ(probe.margin(start), plain.margin) << rules_name(rules);
    // Every move of the start leads into the book or the levels: no search needed.
    const QueryAnswer a = query_position(rules, start, &probe);
    EXPECT_FALSE(a.used_solver);
    EXPECT_EQ(a.value.lower, plain.margin);

    const BookCheck ok = verify_book(rules, store, probe, 0);
    EXPECT_EQ(ok.entries, std::uint64_t(rep.stored));
    EXPECT_EQ(ok.checked, ok.entries);
    EXPECT_EQ(ok.wrong, 0u);
  }
}

TEST(Book, AWrongEntryIsFoundByTheCheck) {
  const TableId t{Rules::kWetherell, 3};
  const Position start = start_position(3, 3);
  test::TempDir dir("book_bad");
  Store store(dir.str(), true, test::fast_store());
  build_database(store, {t, 5, 2});
  {
    Probe probe(store, t, 1 << 20);
    build_book(t.rules, store, probe, start, 1, {});
  }
  auto entries = store.book_entries(t);
  ASSERT_FALSE(entries.empty());
  entries[0].second += 2;  // margins keep their parity: an off-by-two value
  store.put_book(t, {entries[0]});
  Probe probe(store, t, 1 << 20);
  const BookCheck c = verify_book(t.rules, store, probe, 0);
  EXPECT_EQ(c.wrong, 1u);
  ASSERT_EQ(c.examples.size(), 1u);
}

}  // namespace
}  // namespace kalah
