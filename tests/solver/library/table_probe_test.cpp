// libkalah's binary probe (TableProbe): the same margins as Database::value, resident, batched and
// through the block cache, and "not covered" where the table does not reach; binary positions'
// notation and draw_positions.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "engine/random_position.hpp"
#include "kalah/kalah.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/db_test_util.hpp"

namespace kalah {
namespace {

constexpr int kPits = 4;
constexpr int kTop = 10;

class TableProbeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir("table_probe");
    Store store(dir_->str(), true, test::fast_store());
    build_database(store, {{Rules::kKalah, kPits}, kTop, 2});
    build_database(store, {{Rules::kWetherell, kPits}, kTop, 2});
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static api::Database open(api::Options::Load load) {
    api::Options o;
    o.load = load;
    return api::Database(dir_->str(), o);
  }
  static test::TempDir* dir_;
};
test::TempDir* TableProbeTest::dir_ = nullptr;

// A random position of kPits pits with n stones in pits and small kalahs, as text and binary.
struct Sample {
  std::string text;
  api::BinaryPosition binary;
};
Sample random_position(std::mt19937& rng, int n) {
  Position p;
  p.m = kPits;
  for (int s = 0; s < n; ++s) {
    const int cell = int(rng() % (2 * kPits));
    if (cell < kPits)
      ++p.own_pit(cell);
    else
      ++p.opp_pit(cell - kPits);
  }
  p.own_kalah() = Stones(rng() % 6);
  p.opp_kalah() = Stones(rng() % 6);
  if (rng() % 2) p.mover = Side::kNorth;
  Sample s{to_string(p), {}};
  s.binary.pits = kPits;
  for (int i = 0; i < kPits; ++i) {
    s.binary.own[i] = std::uint8_t(p.own_pit(i));
    s.binary.opp[i] = std::uint8_t(p.opp_pit(i));
  }
  s.binary.own_kalah = p.own_kalah();
  s.binary.opp_kalah = p.opp_kalah();
  return s;
}

TEST_F(TableProbeTest, MarginsAreDatabaseValuesResidentBatchedAndCached) {
  for (const std::string rules : {"kalah", "wetherell"}) {
    std::mt19937 rng(7);
    std::vector<api::BinaryPosition> batch;
    std::vector<int> want;
    {
      const api::Database db = open(api::Options::Load::kMemory);
      const std::optional<api::TableProbe> t = db.table_probe(rules, kPits);
      ASSERT_TRUE(t);
      EXPECT_TRUE(t->resident());
      EXPECT_EQ(t->rules(), rules);
      EXPECT_EQ(t->pits(), kPits);
      EXPECT_EQ(t->max_stones(), kTop);
      for (int k = 0; k < 3000; ++k) {
        const Sample s = random_position(rng, int(rng() % (kTop + 1)));
        const std::optional<int> v = db.value(rules, s.text);
        ASSERT_TRUE(v) << s.text;
        const api::ProbeResult r = t->probe(s.binary);
        ASSERT_TRUE(r.exact()) << s.text;
        EXPECT_EQ(r.margin, *v) << rules << " " << s.text;
        batch.push_back(s.binary);
        want.push_back(*v);
      }
      std::vector<api::ProbeResult> out(batch.size());
      t->probe(batch, out);
      for (std::size_t i = 0; i < out.size(); ++i) {
        ASSERT_TRUE(out[i].exact());
        EXPECT_EQ(out[i].margin, want[i]) << i;
      }
    }
    // One database of a path at a time in a process: the cache's after the memory's.
    const api::Database db = open(api::Options::Load::kCache);
    const std::optional<api::TableProbe> t = db.table_probe(rules, kPits);
    ASSERT_TRUE(t);
    EXPECT_FALSE(t->resident());
    std::vector<api::ProbeResult> out(batch.size());
    t->probe(batch, out);
    for (std::size_t i = 0; i < out.size(); ++i) {
      ASSERT_TRUE(out[i].exact());
      EXPECT_EQ(out[i].margin, want[i]) << i;
      EXPECT_EQ(t->probe(batch[i]).margin, want[i]) << i;
    }
  }
}

TEST_F(TableProbeTest, NotCoveredBeyondTheLevelsOrAnotherBoardSize) {
  const api::Database db = open(api::Options::Load::kMemory);
  const std::optional<api::TableProbe> t = db.table_probe("kalah", kPits);
  ASSERT_TRUE(t);
  std::mt19937 rng(11);
  for (int k = 0; k < 200; ++k) {
    const Sample s = random_position(rng, kTop + 1 + int(rng() % 8));
    const api::ProbeResult r = t->probe(s.binary);
    if (db.value("kalah", s.text)) {
      // The game is over: the rules answer it, whatever the stones.
      EXPECT_EQ(r.margin, *db.value("kalah", s.text)) << s.text;
    } else {
      EXPECT_EQ(r.status, api::ProbeResult::Status::kNotCovered) << s.text;
    }
  }
  api::BinaryPosition other;
  other.pits = 6;
  other.own[0] = other.opp[0] = 1;
  EXPECT_EQ(t->probe(other).status, api::ProbeResult::Status::kNotCovered);
  EXPECT_FALSE(db.table_probe("kalah-empty-capture", kPits));
  EXPECT_FALSE(db.table_probe("kalah", 6));
  EXPECT_THROW(db.table_probe("no-such-rules", kPits), api::Error);
}

TEST_F(TableProbeTest, AProbeOutlivesItsDatabaseAndServesManyThreads) {
  std::optional<api::TableProbe> t;
  std::string text;
  api::BinaryPosition b;
  int want = 0;
  {
    const api::Database db = open(api::Options::Load::kAuto);
    t = db.table_probe("wetherell", kPits);
    ASSERT_TRUE(t);
    std::mt19937 rng(3);
    const Sample s = random_position(rng, kTop);
    b = s.binary;
    want = *db.value("wetherell", s.text);
  }
  std::vector<std::thread> pool;
  std::atomic<int> wrong{0};
  for (int k = 0; k < 4; ++k)
    pool.emplace_back([&] {
      for (int i = 0; i < 10000; ++i)
        if (t->probe(b).margin != want) ++wrong;
    });
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(wrong, 0);
}

TEST(BinaryPosition, NotationIsThePositionFromItsSideToMove) {
  std::mt19937 rng(5);
  for (int k = 0; k < 200; ++k) {
    const Sample s = random_position(rng, int(rng() % 30));
    Position want = parse_position(s.text);
    want.mover = Side::kSouth;  // the binary form is seen from the side to move
    EXPECT_EQ(api::notation(s.binary), to_string(want)) << s.text;
  }
}

TEST(DrawPositions, AreTheRefereesDrawingAsBinaryPositions) {
  api::DrawOptions o;
  o.pits = 5;
  o.count = 50;
  o.min_stones = 3;
  o.max_stones = 9;
  o.stones = 3;
  o.seed = 17;
  const std::vector<api::BinaryPosition> got = api::draw_positions(o);
  const std::vector<Position> want = draw_table_positions({5, 50, 3, 9, 3, 17});
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(api::notation(got[i]), to_string(want[i]));
  o.max_stones = 256;
  EXPECT_THROW(api::draw_positions(o), api::Error);
  o.max_stones = 9;
  o.min_stones = 1;
  try {
    api::draw_positions(o);
    ADD_FAILURE() << "min_stones 1 was drawn";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.kind(), api::Error::Kind::kInput);
    EXPECT_NE(std::string(e.what()).find("2 <= min <= max"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kalah
