// What a referee reports of a session, and `kalah grade` of a side: moves graded, evaluations
// ranked, rule errors; as text and as JSON.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/referee/grading.hpp"

namespace kalah::referee {

// The moves of a session or a side, summed up.
struct MoveSummary {
  int states = 0;  // positions the bot was asked to move in
  int graded = 0;  // legal moves
  int proven = 0;  // legal moves whose and whose position's margins are exact
  int best = 0;    // proven and best
  int no_move = 0;
  int illegal = 0;
  int blunders = 0;          // proven moves that change the outcome
  long long given_away = 0;  // over proven moves
  int worst = 0;             // the most margin a proven move gave away
  double best_share() const { return proven ? double(best) / proven : 0; }
  double mean_given_away() const { return proven ? double(given_away) / proven : 0; }
};
MoveSummary summarize(const std::vector<MoveGrade>& moves);

struct EvalSample {
  Position position;           // as the bot saw it, South to move
  MarginBound exact;           // its margin for South
  std::optional<double> eval;  // the bot's last evaluation; none when it sent none
};

// Rank correlations of the samples with an evaluation and an exact margin.
struct EvalSummary {
  int states = 0, answered = 0, ranked = 0;
  std::optional<double> tau, rho;  // Kendall's tau-b, Spearman's rho; none when undefined
};
EvalSummary summarize(const std::vector<EvalSample>& samples);

struct RuleError {
  Position position;  // South to move
  int pit = 0;
  std::string why;  // what the solution got wrong, or "no solution"
};

struct SessionReport {
  int session = 0;    // 1, 2, ... in the order the connections came
  std::string peer;   // ADDRESS:PORT of the bot
  std::string name;   // its set info:name, if any
  std::string mode;   // freeplay, eval or verify; empty before `mode`
  std::string ended;  // why the session ended, e.g. "goodbye", "disconnected", "all positions sent"
  std::vector<MoveGrade> moves;   // freeplay
  std::vector<int> game_margins;  // freeplay with games: the bot's final margin a game
  std::vector<EvalSample> evals;  // eval
  int problems = 0;               // verify: problems sent
  int solved = 0;                 // verify: solutions found right
  std::vector<RuleError> rule_errors;
  int malformed = 0;  // lines that broke KGP's grammar, overlong ones, or commands out of place
};

// The moves' lines: the summary, by stones in pits, the blunders with the command that shows
// each (`kalah query 'POSITION' --rules RULES --db DB`), every line starting with indent.
std::string moves_text(const std::vector<MoveGrade>& moves, const std::string& db, Rules rules,
                       const std::string& indent);
nlohmann::json moves_json(const std::vector<MoveGrade>& moves);
nlohmann::json evals_json(const std::vector<EvalSample>& samples);

std::string report_text(const SessionReport& r, const std::string& db);
nlohmann::json report_json(const SessionReport& r);

}  // namespace kalah::referee
