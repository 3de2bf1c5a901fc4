// `kalah solve`'s claims: bounds proven alone, and the certificate that re-proves a solve's root.
#include "tools/cli/solve_claims.hpp"

#include <algorithm>
#include <sstream>

#include "engine/move.hpp"

namespace kalah::cli {
namespace {

// `text` quoted for a POSIX shell.
std::string shell_quote(const std::string& text) {
  std::string q = "'";
  for (const char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// As moves_text shows it: a move below the root's lower bound by its upper bound alone.
std::string bound_text(const MoveBound& m, int root_lower) {
  if (m.exact()) return "= " + std::to_string(m.lower);
  if (m.upper < root_lower) return "<= " + std::to_string(m.upper);
  return "in [" + std::to_string(m.lower) + ", " + std::to_string(m.upper) + "]";
}

// The solve command proving `claims` of q.
std::string claim_command(const CertificateSource& s, const Position& q,
                          const std::vector<MarginClaim>& claims) {
  std::string cmd = "kalah solve --rules " + std::string(rules_name(s.rules));
  if (s.db_stones < 0)
    cmd += " --no-db";
  else
    cmd += " --db " + shell_quote(s.db_path) + " --db-max-stones " + std::to_string(s.db_stones);
  for (const MarginClaim& c : claims)
    cmd += (c.at_least ? " --at-least " : " --at-most ") + std::to_string(c.bound);
  return cmd + " " + shell_quote(to_string(q));
}

}  // namespace

std::string MarginClaim::text() const {
  return std::string("margin ") + (at_least ? ">= " : "<= ") + std::to_string(bound);
}

ClaimCheck check_claim(Rules rules, const Position& p, const MarginClaim& claim,
                       const SolveOptions& opt) {
  ClaimCheck c;
  c.claim = claim;
  // An upper bound is a test expected to fail (margin >= bound + 1).
  const TestResult t =
      solve_test(rules, p, claim.at_least ? claim.bound : claim.bound + 1, opt, !claim.at_least);
  c.nodes = t.nodes;
  c.seconds = t.seconds;
  if (t.stopped) return c;
  c.proven = {t.at_least, t.bound};
  c.holds = t.at_least == claim.at_least;
  return c;
}

std::optional<ClaimCheck> decided_by_bounds(const MarginClaim& claim, int lower, int upper) {
  ClaimCheck c;
  c.claim = claim;
  const bool at_least = claim.at_least;
  if (at_least ? lower >= claim.bound : upper <= claim.bound) {
    c.holds = true;
    c.proven = at_least ? MarginClaim{true, lower} : MarginClaim{false, upper};
  } else if (at_least ? upper < claim.bound : lower > claim.bound) {
    c.holds = false;
    c.proven = at_least ? MarginClaim{false, upper} : MarginClaim{true, lower};
  } else {
    return std::nullopt;
  }
  return c;
}

void narrow(int& lower, int& upper, const ClaimCheck& check) {
  if (!check.holds) return;
  if (check.proven.at_least)
    lower = std::max(lower, check.proven.bound);
  else
    upper = std::min(upper, check.proven.bound);
}

MoveClaims claims_for_move(Rules rules, const Position& p, const MoveBound& m) {
  MoveClaims out;
  out.pit = m.pit;
  out.child = p;
  const bool again = play_move(rules, out.child, m.pit);
  // The child's margin is the move's after an extra turn, else its negation.
  const int lower = again ? m.lower : -m.upper, upper = again ? m.upper : -m.lower;
  const auto [least, most] = margin_range(out.child);
  if (lower > least) out.claims.push_back({true, lower});
  if (upper < most) out.claims.push_back({false, upper});
  return out;
}

std::string certificate_text(const Position& p, const SolveResult& r,
                             const CertificateSource& source) {
  std::ostringstream out;
  const char mover = side_letter(p.mover);
  out << "#!/bin/sh\n# kalah solve certificate: " << rules_name(source.rules) << ", " << p.m
      << " pits a side, position " << shell_quote(to_string(p)) << " (" << mover << " to move).\n";
  if (r.lower == r.upper)
    out << "# Proven margin for " << mover << ": " << r.lower << ".\n";
  else
    out << "# Proven: " << r.lower << " <= margin <= " << r.upper << " for " << mover << ".\n";
  out << "# A position's margin is the largest of its moves' margins. Each command below proves\n"
         "# again, on the position after one root move, the bounds the solve proved on that\n"
         "# move (exit status 0 when they hold); the script stops at the first that does not.\n";
  if (source.db_stones < 0)
    out << "# Database: none (--no-db).\n";
  else
    out << "# Database: " << source.db_path << ", levels 0.." << source.db_stones
        << " (--db-max-stones: a table with more levels answers the same).\n";
  if (r.complete && !r.pv.empty()) {
    out << "# Principal variation:";
    for (const int pit : r.pv) out << " " << pit;
    out << "\n";
  }
  out << "set -e\n";
  int commands = 0;
  for (const MoveBound& m : r.moves) {
    const MoveClaims mc = claims_for_move(source.rules, p, m);
    const char child_mover = side_letter(mc.child.mover);
    out << "# pit " << m.pit << ": margin " << bound_text(m, r.lower) << " for " << mover
        << "; after it " << child_mover << " moves";
    if (mc.claims.empty()) {
      out << ", nothing to prove.\n";
      continue;
    }
    out << ":";
    for (std::size_t i = 0; i < mc.claims.size(); ++i)
      out << (i ? " and " : " ") << child_mover << "'s " << mc.claims[i].text();
    out << "\n" << claim_command(source, mc.child, mc.claims) << "\n";
    ++commands;
  }
  out << "echo \"kalah solve certificate: the claims of " << commands << " root move(s) hold\"\n";
  return out.str();
}

}  // namespace kalah::cli
