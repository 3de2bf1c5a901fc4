// What a referee reports of a session, and `kalah grade` of a side: moves graded, evaluations
// ranked, rule errors; as text and as JSON.
#include "tools/referee/report.hpp"

#include <algorithm>
#include <cstdio>

#include "tools/referee/rank_correlation.hpp"

namespace kalah::referee {
namespace {

constexpr std::size_t kListedInText = 20;  // blunders and rule errors the text lists; JSON all

std::string format(const char* f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string pits_text(const std::vector<int>& pits) {
  std::string out;
  for (int p : pits) {
    if (!out.empty()) out += ' ';
    out += std::to_string(p);
  }
  return out.empty() ? "-" : out;
}

std::string bound_text(const MarginBound& b) {
  return b.exact() ? std::to_string(b.lower)
                   : std::to_string(b.lower) + ".." + std::to_string(b.upper);
}

nlohmann::json bound_json(const MarginBound& b) {
  if (b.exact()) return b.lower;
  return {{"lower", b.lower}, {"upper", b.upper}};
}

std::string optional_text(const std::optional<double>& v) {
  return v ? format("%.3f", *v) : std::string("undefined");
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class T>
std::map<int, std::vector<T>> by_stones(const std::vector<T>& items) {
  std::map<int, std::vector<T>> out;
  for (const T& t : items) out[t.position.pit_stones()].push_back(t);
  return out;
}

// The summaries of items grouped by stones in pits, as a JSON array ascending in stones, each
// summary (summary_json of summarize(group)) with its "stones_in_pits".
template <class T, class ToJson>
nlohmann::json by_stones_json(const std::vector<T>& items, ToJson summary_json) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& [n, group] : by_stones(items)) {
    groups.push_back(summary_json(summarize(group)));
    groups.back()["stones_in_pits"] = n;
  }
  return groups;
}

nlohmann::json summary_json(const MoveSummary& s) {
  return {{"states", s.states},           {"legal", s.graded},
          {"proven", s.proven},           {"best", s.best},
          {"no_move", s.no_move},         {"illegal", s.illegal},
          {"best_share", s.best_share()}, {"mean_given_away", s.mean_given_away()},
          {"worst_given_away", s.worst},  {"outcome_changed", s.blunders}};
}

nlohmann::json eval_summary_json(const EvalSummary& s) {
  return {{"states", s.states},
          {"answered", s.answered},
          {"ranked", s.ranked},
          {"kendall_tau_b", optional_json(s.tau)},
          {"spearman_rho", optional_json(s.rho)}};
}

}  // namespace

MoveSummary summarize(const std::vector<MoveGrade>& moves) {
  MoveSummary s;
  for (const MoveGrade& g : moves) {
    ++s.states;
    if (g.verdict == Verdict::kNoMove) ++s.no_move;
    if (g.verdict == Verdict::kIllegal) ++s.illegal;
    if (g.verdict != Verdict::kGraded) continue;
    ++s.graded;
    if (!g.proven) continue;
    ++s.proven;
    if (g.is_best()) ++s.best;
    if (g.changes_outcome()) ++s.blunders;
    s.given_away += g.given_away();
    s.worst = std::max(s.worst, g.given_away());
  }
  return s;
}

EvalSummary summarize(const std::vector<EvalSample>& samples) {
  EvalSummary s;
  std::vector<double> exact, eval;
  for (const EvalSample& e : samples) {
    ++s.states;
    if (!e.eval) continue;
    ++s.answered;
    if (!e.exact.exact()) continue;
    exact.push_back(e.exact.lower);
    eval.push_back(*e.eval);
  }
  s.ranked = int(exact.size());
  s.tau = kendall_tau_b(exact, eval);
  s.rho = spearman_rho(exact, eval);
  return s;
}

std::string moves_text(const std::vector<MoveGrade>& moves, const std::string& db, Rules rules,
                       const std::string& indent) {
  const MoveSummary s = summarize(moves);
  std::string out = indent + "moves: " + std::to_string(s.states) + " states, " +
                    std::to_string(s.graded) + " legal moves (" + std::to_string(s.proven) +
                    " proven), " + std::to_string(s.no_move) + " without a move, " +
                    std::to_string(s.illegal) + " illegal\n";
  out += indent + "best: " + std::to_string(s.best) + " of " + std::to_string(s.proven) +
         " proven (" + format("%.1f", 100 * s.best_share()) + " %); margin given away: mean " +
         format("%.2f", s.mean_given_away()) + ", worst " + std::to_string(s.worst) +
         "; outcome changed: " + std::to_string(s.blunders) + "\n";
  if (moves.empty()) return out;
  out += indent +
         "by stones in pits (states, proven, best %, mean given away, worst, outcome changed):\n";
  for (const auto& [n, group] : by_stones(moves)) {
    const MoveSummary g = summarize(group);
    char line[160];
    std::snprintf(line, sizeof line, "%s  %3d: %5d %5d %6.1f %% %6.2f %4d %4d\n", indent.c_str(), n,
                  g.states, g.proven, 100 * g.best_share(), g.mean_given_away(), g.worst,
                  g.blunders);
    out += line;
  }
  std::size_t listed = 0;
  for (const MoveGrade& g : moves) {
    if (!g.changes_outcome()) continue;
    if (listed++ == 0) out += indent + "moves that change the outcome:\n";
    if (listed > kListedInText) continue;
    const std::string pos = to_string(g.position);
    out += indent + "  pit " + std::to_string(g.pit) + " in " + pos + ": margin " +
           bound_text(g.best) + " -> " + bound_text(g.chosen) +
           " (best: " + pits_text(g.best_pits) + "); kalah query '" + pos + "' --rules " +
           std::string(rules_name(rules)) + " --db " + db + "\n";
  }
  if (listed > kListedInText)
    out +=
        indent + "  ... " + std::to_string(listed - kListedInText) + " more (--json lists all)\n";
  return out;
}

nlohmann::json moves_json(const std::vector<MoveGrade>& moves) {
  nlohmann::json j = summary_json(summarize(moves));
  j["by_stones_in_pits"] = by_stones_json(moves, summary_json);
  nlohmann::json list = nlohmann::json::array();
  for (const MoveGrade& g : moves) {
    nlohmann::json m = {{"position", to_string(g.position)},
                        {"stones_in_pits", g.position.pit_stones()},
                        {"verdict", verdict_name(g.verdict)},
                        {"pit", g.pit},
                        {"margin", bound_json(g.best)},
                        {"best_pits", g.best_pits},
                        {"proven", g.proven}};
    if (g.verdict == Verdict::kGraded) {
      m["move_margin"] = bound_json(g.chosen);
      m["best"] = g.is_best();
      m["changes_outcome"] = g.changes_outcome();
      if (g.proven) m["given_away"] = g.given_away();
    }
    list.push_back(m);
  }
  j["moves"] = list;
  return j;
}

nlohmann::json evals_json(const std::vector<EvalSample>& samples) {
  nlohmann::json j = eval_summary_json(summarize(samples));
  j["by_stones_in_pits"] = by_stones_json(samples, eval_summary_json);
  nlohmann::json list = nlohmann::json::array();
  for (const EvalSample& e : samples)
    list.push_back({{"position", to_string(e.position)},
                    {"stones_in_pits", e.position.pit_stones()},
                    {"margin", bound_json(e.exact)},
                    {"eval", optional_json(e.eval)}});
  j["states"] = list;
  return j;
}

std::string report_text(const SessionReport& r, const std::string& db) {
  std::string out = "session " + std::to_string(r.session) + " from " + r.peer;
  if (!r.name.empty()) out += " (" + r.name + ")";
  out += ", " + (r.mode.empty() ? std::string("no mode") : r.mode) + ", ended: " + r.ended + "\n";
  if (r.mode == "freeplay") {
    out += moves_text(r.moves, db, Rules::kKalah, "  ");
    if (!r.game_margins.empty()) {
      int won = 0, lost = 0;
      std::string margins;
      for (int m : r.game_margins) {
        won += m > 0;
        lost += m < 0;
        margins += m > 0 ? " +" : " ";
        margins += std::to_string(m);
      }
      out += "  games: " + std::to_string(r.game_margins.size()) + " played to the end, " +
             std::to_string(won) + " won, " +
             std::to_string(int(r.game_margins.size()) - won - lost) + " drawn, " +
             std::to_string(lost) + " lost; the bot's margins:" + margins + "\n";
    }
  } else if (r.mode == "eval") {
    const EvalSummary s = summarize(r.evals);
    out += "  evaluations: " + std::to_string(s.states) + " states, " + std::to_string(s.answered) +
           " answered, " + std::to_string(s.ranked) +
           " ranked against exact margins: Kendall's tau-b " + optional_text(s.tau) +
           ", Spearman's rho " + optional_text(s.rho) + "\n";
    if (!r.evals.empty()) {
      out += "  by stones in pits (ranked, tau-b, rho):\n";
      for (const auto& [n, group] : by_stones(r.evals)) {
        const EvalSummary g = summarize(group);
        char line[128];
        std::snprintf(line, sizeof line, "    %3d: %5d %9s %9s\n", n, g.ranked,
                      optional_text(g.tau).c_str(), optional_text(g.rho).c_str());
        out += line;
      }
    }
  } else if (r.mode == "verify") {
    out += "  problems: " + std::to_string(r.problems) + " sent, " + std::to_string(r.solved) +
           " solved right, " + std::to_string(r.rule_errors.size()) + " wrong or unanswered\n";
    for (std::size_t i = 0; i < r.rule_errors.size() && i < kListedInText; ++i) {
      const RuleError& e = r.rule_errors[i];
      out +=
          "    pit " + std::to_string(e.pit) + " in " + to_string(e.position) + ": " + e.why + "\n";
    }
    if (r.rule_errors.size() > kListedInText)
      out += "    ... " + std::to_string(r.rule_errors.size() - kListedInText) +
             " more (--json lists all)\n";
  }
  if (r.malformed) out += "  malformed or unexpected lines: " + std::to_string(r.malformed) + "\n";
  return out;
}

nlohmann::json report_json(const SessionReport& r) {
  nlohmann::json j = {{"session", r.session}, {"peer", r.peer},   {"name", r.name},
                      {"mode", r.mode},       {"ended", r.ended}, {"malformed_lines", r.malformed}};
  if (r.mode == "freeplay") {
    j["moves"] = moves_json(r.moves);
    if (!r.game_margins.empty()) j["game_margins"] = r.game_margins;
  } else if (r.mode == "eval") {
    j["evaluations"] = evals_json(r.evals);
  } else if (r.mode == "verify") {
    nlohmann::json errors = nlohmann::json::array();
    for (const RuleError& e : r.rule_errors)
      errors.push_back({{"position", to_string(e.position)}, {"pit", e.pit}, {"why", e.why}});
    j["verify"] = {{"problems", r.problems}, {"solved", r.solved}, {"errors", errors}};
  }
  return j;
}

}  // namespace kalah::referee
