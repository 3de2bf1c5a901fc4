// Grading one move against exact values: the database's table, or a bounded search beyond it.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "db/probe.hpp"
#include "db/store.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/answers/query.hpp"
#include "solver/exhaustive/solve_tt.hpp"

namespace kalah::referee {

// A database's tables of one rule set, a Probe per board size made on first use and shared by
// every session (Probe is thread-safe). Throws DbError when the database cannot be opened.
class Tables {
 public:
  Tables(const std::string& db, Rules rules);
  Rules rules() const { return rules_; }
  const std::string& path() const { return store_.path(); }
  // The board sizes the database has a table of under rules(), ascending.
  std::vector<int> sizes() const;
  // The table of m-pit boards, or null when the database has none.
  ExactOracle* oracle(int m);
  // The most stones in pits the table of m-pit boards answers; -1 when there is none.
  int max_stones(int m);
  // Frees the database's reader slots left by killed processes (Store::clear_stale_readers):
  // what a referee that runs for long calls now and then. Returns how many.
  std::size_t clear_stale_readers() const { return store_.clear_stale_readers(); }

 private:
  Rules rules_;
  Store store_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<Probe>> probes_;  // null entries: no table of that size
};

// What a move was graded as.
enum class Verdict {
  kGraded,   // a legal move, valued
  kNoMove,   // no move before the state was stopped
  kIllegal,  // a pit out of 1..m or an empty one
};
const char* verdict_name(Verdict v);  // "graded", "no move", "illegal"

struct MoveGrade {
  Position position;  // before the move, the grader's mover to move
  int pit = 0;  // the move as sent, 1-based (a number beyond int's range as -1); 0 with kNoMove
  Verdict verdict = Verdict::kGraded;
  MarginBound chosen;          // the move's margin for the mover (kGraded only)
  MarginBound best;            // the position's margin for the mover
  std::vector<int> best_pits;  // the moves proven best, ascending
  // Both margins exact: only then is the move counted as best or not and given_away() known.
  bool proven = false;
  bool is_best() const { return proven && chosen.lower == best.lower; }
  int given_away() const { return best.lower - chosen.lower; }  // proven only
  // Proven, and the move turns a win into a draw or a loss, or a draw into a loss.
  bool changes_outcome() const {
    return proven && outcome_of(chosen.lower) != outcome_of(best.lower);
  }
};

// Grades one session's moves: exact values from the table where it answers every move, else an
// every-move analysis of at most `search_seconds` (its unproven margins kept as bounds) through a
// solver TT of tt_bytes allocated on the first search. The analysis stops early, its margins
// kept as bounds, once *cancel is true (when cancel is not null).
class Grader {
 public:
  Grader(Tables& tables, double search_seconds, std::size_t tt_bytes,
         const std::atomic<bool>* cancel = nullptr);
  ~Grader();

  // The margins of p (not over) and of each of its moves for the side to move.
  QueryAnswer values(const Position& p);
  // Grades `pit` (1-based, as sent: any number; nullopt: no move) played in p (not over).
  MoveGrade grade(const Position& p, std::optional<int> pit);
  // Grades pit against answer a, the values(p) already found.
  static MoveGrade grade(const Position& p, std::optional<int> pit, const QueryAnswer& a);

 private:
  Tables& tables_;
  double search_seconds_;
  std::size_t tt_bytes_;
  const std::atomic<bool>* cancel_;
  std::unique_ptr<SolveTT> tt_;
};

}  // namespace kalah::referee
