// `kalah solve`'s printed answers, text and JSON: a solve's, the claims', the book's, the
// checkpoint's line.
#include "tools/cli/solve_report.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "solver/answers/query.hpp"
#include "tools/cli/progress.hpp"

namespace kalah::cli {
namespace {

std::string join(const std::vector<int>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

// "win" / "draw" / "loss" when the proven bounds decide the outcome, else "".
std::string outcome(const SolveResult& r) {
  const auto o = decided_outcome(r.lower, r.upper);
  return o ? outcome_name(*o) : "";
}

// The database's JSON fields: db_stones, db_in_memory, db_open_seconds.
void add_db_fields(nlohmann::ordered_json& j, const DbUse& db) {
  j["db_stones"] = db.stones;
  j["db_in_memory"] = db.in_memory;
  j["db_open_seconds"] = db.open_s;
}

// "exact up to N stones in pits, loaded into memory in S s" (or "opened (block cache)").
std::string db_text(const DbUse& db) {
  char line[160];
  std::snprintf(line, sizeof line, "exact up to %d stones in pits, %s in %.2f s", db.stones,
                db.in_memory ? "loaded into memory" : "opened (block cache)", db.open_s);
  return line;
}

}  // namespace

DbUse db_use(const Probe& probe, double open_s) {
  return {probe.max_stones(), probe.resident(), open_s};
}

std::string TtRange::text() const {
  if (max == 0) return "no solve needed";  // every position was over or in the levels
  std::string t = "TT " + std::to_string(min >> 20);
  if (min != max) t.append("-").append(std::to_string(max >> 20));
  return t + " MiB";
}

nlohmann::ordered_json best_first_tree_json(const SolveResult& r) {
  const TreeCounts& t = r.top_tree;
  return {{"nodes", t.nodes},
          {"repeated", t.repeated},
          {"expanded", t.expanded},
          {"repeated_expanded", t.repeated_expanded}};
}

void print_json(const Position& p, Rules rules, const SolveResult& r, const DbUse& db,
                const SolveCheckpoint* checkpoint, const std::vector<RootTest>* tests) {
  const std::string out = outcome(r);
  nlohmann::ordered_json j;
  j["position"] = to_string(p);
  j["rules"] = rules_name(rules);
  j["complete"] = r.complete;
  j["outcome"] = out.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(out);
  j["margin"] =
      r.lower == r.upper ? nlohmann::ordered_json(r.lower) : nlohmann::ordered_json(nullptr);
  j["lower"] = r.lower;
  j["upper"] = r.upper;
  j["best_moves"] =
      r.complete ? nlohmann::ordered_json(r.best_moves) : nlohmann::ordered_json(nullptr);
  j["pv"] =
      r.complete && !r.pv.empty() ? nlohmann::ordered_json(r.pv) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json moves = nlohmann::ordered_json::array();
  for (const MoveBound& m : r.moves)
    moves.push_back({{"pit", m.pit}, {"lower", m.lower}, {"upper", m.upper}});
  j["moves"] = moves;
  j["nodes"] = r.nodes;
  add_db_fields(j, db);
  j["db_hits"] = r.oracle_hits;
  j["expanded_nodes"] = r.expanded;
  j["tt_cutoffs"] = r.tt_cutoffs;
  j["best_first_nodes"] = r.top_nodes;
  j["best_first_tree"] = best_first_tree_json(r);
  j["seconds"] = r.seconds;
  j["nodes_per_second"] = std::llround(r.seconds > 0 ? r.nodes / r.seconds : 0.0);
  j["idle_thread_seconds"] = r.idle_seconds;
  if (checkpoint != nullptr)
    j["checkpoint"] = {
        {"runs", checkpoint->runs}, {"nodes", checkpoint->nodes}, {"seconds", checkpoint->seconds}};
  if (tests != nullptr) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const RootTest& t : *tests)
      list.push_back({{"pit", t.pit},
                      {"level", t.level},
                      {"holds", t.holds},
                      {"bound", t.bound},
                      {"nodes", t.nodes},
                      {"expanded_nodes", t.expanded},
                      {"best_first", t.best_first}});
    j["tests"] = list;
  }
  std::cout << j.dump() << "\n";
}

std::string test_text(const RootTest& t) {
  return (t.pit == 0 ? std::string("the root") : "pit " + std::to_string(t.pit)) +
         ": margin >= " + signed_value(t.level) + "? " + (t.holds ? "yes" : "no") + ": margin " +
         (t.holds ? ">= " : "<= ") + signed_value(t.bound) + " (" + with_commas(t.nodes) +
         (t.nodes == 1 ? " node, " : " nodes, ") + with_commas(t.expanded) + " expanded, " +
         (t.best_first ? "best-first" : "depth-first") + ")";
}

void print_text(const Position& p, Rules rules, const SolveResult& r, const DbUse& db) {
  const std::string out = outcome(r);
  const char mover = side_letter(p.mover);
  std::cout << "position:   " << to_string(p) << " (" << rules_name(rules) << ", " << mover
            << " to move)\n";
  std::cout << "outcome:    " << (out.empty() ? "unknown" : out + " for " + mover)
            << (r.complete ? "" : " (incomplete: time limit)") << "\n";
  if (r.lower == r.upper)
    std::cout << "margin:     " << (r.lower > 0 ? "+" : "") << r.lower << "\n";
  else
    std::cout << "margin:     unknown, proven " << r.lower << " <= margin <= " << r.upper << "\n";
  if (r.complete) {
    std::cout << "best moves: "
              << (r.best_moves.empty() ? "none (game over)" : join(r.best_moves, " ")) << "\n";
    if (!r.best_moves.empty())
      std::cout << "pv:         " << (r.pv.empty() ? "not computed" : join(r.pv, " ")) << "\n";
  }
  if (!r.moves.empty()) std::cout << "moves:      " << moves_text(r) << "\n";
  if (db.stones >= 0) std::cout << "database:   " << db_text(db) << "\n";
  char line[160];
  std::snprintf(
      line, sizeof line,
      "nodes:      %llu, db hits %llu, expanded %llu, TT cutoffs %llu, %.3f s, %.2f M nodes/s\n",
      static_cast<unsigned long long>(r.nodes), static_cast<unsigned long long>(r.oracle_hits),
      static_cast<unsigned long long>(r.expanded), static_cast<unsigned long long>(r.tt_cutoffs),
      r.seconds, r.seconds > 0 ? r.nodes / r.seconds / 1e6 : 0.0);
  std::cout << line;
  if (r.top_nodes > 1)  // a tree grew (a top whose tests all settled at its root holds 1 node)
    std::cout << "best-first: at most " << r.top_nodes << " tree nodes in a test ("
              << (r.top_bytes + (1 << 20) - 1) / (1 << 20) << " MiB); in all tests "
              << r.top_tree.nodes << " made, " << r.top_tree.repeated
              << " a position already in their tree; " << r.top_tree.expanded << " expanded, "
              << r.top_tree.repeated_expanded << " already expanded\n";
}

void print_book_report(const SolveArgs& a, const BookReport& b, const TtRange& tt,
                       const Probe& probe, double open_s, const std::string& keep_path) {
  if (a.json) {
    nlohmann::ordered_json j;
    j["position"] = to_string(a.position);
    j["rules"] = rules_name(a.rules);
    j["db"] = a.db_path;
    j["book_plies"] = a.book_plies;
    j["positions"] = b.positions;
    j["stored"] = b.stored;
    j["unsolved"] = b.unsolved;
    j["reused"] = b.reused;
    j["threads"] = a.threads;
    j["tt_mb_min"] = tt.min >> 20;
    j["tt_mb_max"] = tt.max >> 20;
    add_db_fields(j, db_use(probe, open_s));
    j["nodes"] = b.nodes;
    j["seconds"] = b.seconds;
    std::cout << j.dump() << "\n";
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "book: %d positions within %d plies, %d stored (%d unsolved in time, not "
                "stored); %.2f s, %llu nodes, %d thread%s, %s\n",
                b.positions, a.book_plies, b.stored, b.unsolved, b.seconds,
                static_cast<unsigned long long>(b.nodes), a.threads, a.threads == 1 ? "" : "s",
                tt.text().c_str());
  std::cout << buf;
  if (b.reused > 0)
    std::cout << "kept:       " << b.reused << " of them solved by an earlier run (kept in "
              << keep_path << ")\n";
  std::cout << "database:   " << a.db_path << ", " << db_text(db_use(probe, open_s)) << "\n";
}

void print_checkpoint(const SolveArgs& a, const SolveCheckpoint& c, bool resumed) {
  if (a.json) return;
  char line[256];
  std::snprintf(line, sizeof line, "checkpoint: %s (%s), %d run%s: %llu nodes, %.1f s in all\n",
                a.checkpoint.c_str(), resumed ? "resumed" : "new", c.runs, c.runs == 1 ? "" : "s",
                static_cast<unsigned long long>(c.nodes), c.seconds);
  std::cout << line;
}

std::string proven_text(const SolveResult& r) {
  std::string text = "margin in [" + std::to_string(r.lower) + ", " + std::to_string(r.upper) +
                     "]; " + moves_text(r);
  if (!r.best_moves.empty()) text += "; best moves " + join(r.best_moves, " ");
  return text;
}

void print_claims(const SolveArgs& a, const std::vector<ClaimCheck>& checks, const SolveResult& run,
                  bool all, const DbUse& db) {
  if (a.json) {
    nlohmann::ordered_json j;
    j["position"] = to_string(a.position);
    j["rules"] = rules_name(a.rules);
    nlohmann::ordered_json claims = nlohmann::ordered_json::array();
    for (const ClaimCheck& c : checks)
      claims.push_back({{"claim", c.claim.text()},
                        {"holds", c.holds ? nlohmann::ordered_json(*c.holds) : nullptr},
                        {"proven", c.holds ? nlohmann::ordered_json(c.proven.text()) : nullptr}});
    j["claims"] = claims;
    j["holds"] = all;
    add_db_fields(j, db);
    j["nodes"] = run.nodes;
    j["seconds"] = run.seconds;
    std::cout << j.dump() << "\n";
    return;
  }
  std::cout << "position:   " << to_string(a.position) << " (" << rules_name(a.rules) << ", "
            << side_letter(a.position.mover) << " to move)\n";
  for (const ClaimCheck& c : checks)
    std::cout << "claim:      " << c.claim.text() << ": "
              << (!c.holds   ? std::string("unknown (time limit)")
                  : *c.holds ? "holds (proven " + c.proven.text() + ")"
                             : "does not hold (proven " + c.proven.text() + ")")
              << "\n";
  if (db.stones >= 0) std::cout << "database:   " << db_text(db) << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "nodes:      %llu, %.3f s\n",
                static_cast<unsigned long long>(run.nodes), run.seconds);
  std::cout << line;
}

}  // namespace kalah::cli
