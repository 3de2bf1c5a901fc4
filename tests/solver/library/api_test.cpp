// libkalah's public API (kalah/kalah.hpp): values against the vectors, the database against search,
// `kalah query --json` against Answer::to_json, errors, many threads on one database.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "kalah/kalah.hpp"
#include "solver/retrograde/build.hpp"
#include "tests/support/cli_run.hpp"
#include "tests/support/db_test_util.hpp"
#include "tests/support/random_positions.hpp"
#include "tests/support/vectors.hpp"

namespace kalah {
namespace {

struct Vector {
  std::string rules, position;
  int value;
};

// The first `per_file` vectors of each rule set with at most max_pits pits a side.
std::vector<Vector> value_vectors(int max_pits, int per_file) {
  std::vector<Vector> out;
  for (const std::string& rules : api::rule_sets()) {
    int taken = 0;
    for (const auto& row : test::read_vector_file("values-" + rules + ".txt")) {
      const std::string position = row[0] + " " + row[1];
      if (parse_position(position).m > max_pits || taken == per_file) continue;
      out.push_back({rules, position, std::stoi(row[2])});
      ++taken;
    }
  }
  return out;
}

// The checks every answer must pass: moves ascending with their resulting positions, the value
// the best of the moves' values, best marking exactly the moves that keep an exact value.
void expect_consistent(const api::Answer& a) {
  int best = -1000;
  for (std::size_t i = 0; i < a.moves.size(); ++i) {
    const api::MoveValue& m = a.moves[i];
    if (i) {
      EXPECT_LT(a.moves[i - 1].pit, m.pit);
    }
    EXPECT_EQ(m.position, api::play(a.rules, a.position, m.pit)) << a.position << " pit " << m.pit;
    EXPECT_FALSE(m.explain.empty());
    best = std::max(best, m.value.lower);
    EXPECT_EQ(m.best, a.value.exact() && m.value.exact() && m.value.lower == a.value.lower);
  }
  if (!a.over && a.value.exact()) {
    EXPECT_EQ(best, a.value.lower) << a.position;
  }
  EXPECT_EQ(a.over, a.moves.empty());
}

TEST(Api, WithoutADatabaseSearchAnswersTheValueVectors) {
  const api::Database none;
  EXPECT_TRUE(none.tables().empty());
  for (const Vector& v : value_vectors(4, 30)) {
    const api::Answer a = none.query(v.rules, v.position, 0);
    ASSERT_TRUE(a.value.exact()) << v.position;
    EXPECT_EQ(a.value.lower, v.value) << v.rules << " " << v.position;
    EXPECT_EQ(a.source, a.over ? "rules" : "search");
    expect_consistent(a);
    if (!a.over) {
      EXPECT_FALSE(none.value(v.rules, v.position)) << v.position;
    }
    EXPECT_EQ(none.best_moves(v.rules, v.position, 0).empty(), a.over);
  }
}

class ApiWithTable : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir("api_table");
    Store store(dir_->str(), true, test::fast_store());
    build_database(store, {{Rules::kKalah, 4}, kTop, 2});
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static constexpr int kTop = 10;
  static test::TempDir* dir_;
};
test::TempDir* ApiWithTable::dir_ = nullptr;

TEST_F(ApiWithTable, TheTableAnswersInsideAndLeadsTheSearchBeyond) {
  const api::Database db(dir_->str());
  ASSERT_EQ(db.tables().size(), 1u);
  EXPECT_EQ(db.tables()[0].rules, "kalah");
  EXPECT_EQ(db.tables()[0].pits, 4);
  EXPECT_EQ(db.tables()[0].max_stones, kTop);
  EXPECT_FALSE(db.table("wetherell", 4));
  const api::Database none;
  int inside = 0, beyond = 0;
  for (const Vector& v : value_vectors(4, 1000)) {
    if (v.rules != "kalah" || parse_position(v.position).m != 4) continue;
    const Position p = parse_position(v.position);
    const api::Answer a = db.query(v.rules, v.position, 0);
    ASSERT_TRUE(a.value.exact());
    EXPECT_EQ(a.value.lower, v.value) << v.position;
    expect_consistent(a);
    auto with = nlohmann::json::parse(a.to_json());
    auto without = nlohmann::json::parse(none.query(v.rules, v.position, 0).to_json());
    with.erase("source");
    without.erase("source");
    EXPECT_EQ(with, without) << "the same values with and without the table: " << v.position;
    if (p.pit_stones() <= kTop) {
      ++inside;
      EXPECT_EQ(db.value(v.rules, v.position), v.value) << v.position;
    } else {
      ++beyond;
      EXPECT_FALSE(db.value(v.rules, v.position));
    }
  }
  EXPECT_GT(inside, 0);
  EXPECT_GT(beyond, 0);
}

TEST_F(ApiWithTable, QueryJsonIsTheLibrarysAnswer) {
  std::string positions;
  std::vector<std::string> asked;
  for (const Vector& v : value_vectors(4, 1000))
    if (v.rules == "kalah") {
      positions += v.position + "\n";
      asked.push_back(v.position);
    }
  const std::string input = test::temp_path("api_positions");
  { std::ofstream(input) << positions; }
  const test::CliResult r = test::run_cli("KALAH query --rules kalah --json --quiet --db " +
                                          dir_->str() + " - < " + input);
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  const api::Database db(dir_->str());
  std::string line;
  std::size_t i = 0;
  for (; std::getline(lines, line); ++i) {
    ASSERT_LT(i, asked.size());
    const auto printed = nlohmann::json::parse(line);
    const api::Answer a = db.query("kalah", asked[i], 0);
    EXPECT_EQ(printed, nlohmann::json::parse(a.to_json())) << asked[i];
    EXPECT_EQ(printed.at("margin"), a.value.lower);
    EXPECT_EQ(printed.at("moves").size(), a.moves.size());
  }
  EXPECT_EQ(i, asked.size());
}

// Positions beyond the table asked twice, the second time in reverse, through a 64 KiB analysis
// cache (1,024 buckets, aging: each query a generation of its own) that they overfill: every
// answer equals the one of a cold cache.
TEST_F(ApiWithTable, AnAgedAnalysisCacheAnswersAsAColdOne) {
  std::mt19937_64 rng(45);
  std::vector<std::string> positions;
  while (positions.size() < 24) {
    const Position p = test::random_position(Rules::kKalah, 4, 4, 2 + int(rng() % 10), rng);
    if (!is_over(Rules::kKalah, p) && p.pit_stones() > kTop) positions.push_back(to_string(p));
  }
  api::Options options;
  options.tt_bytes = std::size_t(64) << 10;
  const api::Database db(dir_->str(), options);
  std::vector<std::string> cold;
  for (const std::string& p : positions) {
    db.clear_cache();
    cold.push_back(db.query("kalah", p, 0).to_json());
  }
  db.clear_cache();
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const std::size_t k = pass == 0 ? i : positions.size() - 1 - i;
      EXPECT_EQ(db.query("kalah", positions[k], 0).to_json(), cold[k]) << positions[k];
    }
  EXPECT_EQ(db.tt_bytes(), options.tt_bytes);
}

TEST_F(ApiWithTable, ManyThreadsShareOneDatabase) {
  std::vector<Vector> vectors;  // the table's rule set and board size
  for (const Vector& v : value_vectors(4, 1000))
    if (v.rules == "kalah") vectors.push_back(v);
  std::vector<std::string> want;
  {
    const api::Database db(dir_->str());
    for (const Vector& v : vectors) want.push_back(db.query(v.rules, v.position, 0).to_json());
  }
  // A fresh database: Load::kAuto swaps in the decoded table while the other threads query.
  std::vector<std::string> notes;  // written under the database's lock
  api::Options options;
  options.note = [&](const std::string& line) { notes.push_back(line); };
  const api::Database shared(dir_->str(), options);
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = t % 2; i < vectors.size(); i += 2)
        wrong[t] += shared.query(vectors[i].rules, vectors[i].position, 0).to_json() != want[i];
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("decoded into memory"), std::string::npos) << notes[0];
}

// The analysis cache shared by four threads, each asking every vector in its own order: every
// answer equals the one of a cold cache (a Database of its own for each position).
TEST(Api, AWarmAnalysisCacheAnswersAsAColdOne) {
  const std::vector<Vector> vectors = value_vectors(4, 30);
  std::vector<std::string> cold;
  for (const Vector& v : vectors)
    cold.push_back(api::Database().query(v.rules, v.position, 0).to_json());
  api::Options options;
  options.tt_bytes = std::size_t(4) << 20;
  const api::Database warm(options);
  EXPECT_EQ(warm.tt_bytes(), options.tt_bytes);
  EXPECT_EQ(api::Database().tt_bytes(), 0u);  // sized at its first search
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t k = 0; k < vectors.size(); ++k) {
        const std::size_t i = (k * (2 * t + 1) + 7 * t) % vectors.size();
        api::QueryOptions o;
        o.max_seconds = 0;
        o.threads = 1 + t % 2;
        wrong[t] += warm.query(vectors[i].rules, vectors[i].position, o).to_json() != cold[i];
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

// The answers so far bound the final one; a cancelled query answers the bounds proven by then.
TEST(Api, AnswersSoFarAndACancelledQueryHoldTrueBounds) {
  const api::Database db;
  const std::string p = api::start_position(5, 3);
  const api::Answer full = db.query("wetherell", p, 0, 2);
  ASSERT_TRUE(full.value.exact());
  const auto holds = [&](const api::Answer& a) {
    EXPECT_LE(a.value.lower, full.value.lower);
    EXPECT_GE(a.value.upper, full.value.lower);
    ASSERT_EQ(a.moves.size(), full.moves.size());
    for (std::size_t k = 0; k < a.moves.size(); ++k) {
      EXPECT_LE(a.moves[k].value.lower, full.moves[k].value.lower);
      EXPECT_GE(a.moves[k].value.upper, full.moves[k].value.lower);
      EXPECT_EQ(a.moves[k].position, full.moves[k].position);
    }
    expect_consistent(a);
  };
  std::atomic<bool> cancel{false};
  int calls = 0;
  api::QueryOptions o;
  o.max_seconds = 0;
  o.cancel = &cancel;
  o.on_proven = [&](const api::Answer& so_far) {
    holds(so_far);
    if (++calls == 1) cancel = true;
  };
  const api::Answer cut = api::Database().query("wetherell", p, o);
  EXPECT_GE(calls, 1);  // the search notices the cancel within a few thousand nodes
  holds(cut);
  EXPECT_FALSE(cut.value.exact() &&
               std::all_of(cut.moves.begin(), cut.moves.end(),
                           [](const api::MoveValue& m) { return m.value.exact(); }));
}

TEST(Api, TimeRunOutGivesLabelledBounds) {
  const api::Answer a = api::Database().query("kalah", api::start_position(6, 6), 0.05);
  EXPECT_FALSE(a.value.exact());
  const auto j = nlohmann::json::parse(a.to_json());
  EXPECT_TRUE(j.at("margin").is_null());
  EXPECT_EQ(j.at("exact"), false);
  EXPECT_LT(j.at("lower").get<int>(), j.at("upper").get<int>());
  EXPECT_TRUE(api::Database().best_moves("kalah", api::start_position(6, 6), 0.05).empty());
}

TEST(Api, ErrorsSayWhatIsWrong) {
  auto kind_of = [](auto&& f) {
    try {
      f();
    } catch (const api::Error& e) {
      EXPECT_FALSE(std::string(e.what()).empty());
      return int(e.kind());
    }
    return -1;
  };
  const int input = int(api::Error::Kind::kInput), database = int(api::Error::Kind::kDatabase);
  const api::Database none;
  const std::string start = api::start_position(4, 3);
  EXPECT_EQ(kind_of([&] { none.query("chess", start); }), input);
  EXPECT_EQ(kind_of([&] { none.query("kalah", "1,2,3 S"); }), input);
  EXPECT_EQ(kind_of([&] { none.query("kalah", start, -1); }), input);
  EXPECT_EQ(kind_of([&] { none.value("kalah", "garbage"); }), input);
  EXPECT_EQ(kind_of([&] { api::play("kalah", start, 5); }), input);
  EXPECT_EQ(kind_of([&] { api::play("kalah", "0,3,3,3,0/3,3,3,3,0 S", 1); }), input);
  EXPECT_EQ(kind_of([&] { api::start_position(13, 1); }), input);
  EXPECT_EQ(kind_of([&] { api::Database("/nonexistent/kalah.db"); }), database);
  const test::TempDir empty("api_not_a_db");
  EXPECT_EQ(kind_of([&] { api::Database(empty.str()); }), database);
  EXPECT_EQ(api::start_position(4, 3), "3,3,3,3,0/3,3,3,3,0 S");
  EXPECT_EQ(api::version(), "0.2");
}

}  // namespace
}  // namespace kalah
