// `kalah solve`'s claims: a bound on a margin proven alone (--at-least, --at-most), and the
// certificate of a solve (--certificate): every root move's proven bound as a claim on the
// position after it, each with the one command that proves it again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah::cli {

// A bound on a position's margin (RULES.md, for its side to move): margin >= bound when
// at_least, else margin <= bound.
struct MarginClaim {
  bool at_least = true;
  int bound = 0;
  std::string text() const;  // "margin >= 2"
};

// What one test proved of a claim: holds (or not; nullopt when the time ran out first) and the
// bound the test proved, which decides it.
struct ClaimCheck {
  MarginClaim claim;
  std::optional<bool> holds;
  MarginClaim proven;  // meaningful when holds has a value
  std::uint64_t nodes = 0;
  double seconds = 0;
};

// Proves or refutes `claim` of p by one null-window test (solve_test at the claim's bound for
// margin >= bound, one above it for margin <= bound).
ClaimCheck check_claim(Rules rules, const Position& p, const MarginClaim& claim,
                       const SolveOptions& opt);

// The check of `claim` that the proven bounds lower <= margin <= upper already give (no nodes
// searched), or nullopt when they do not decide it.
std::optional<ClaimCheck> decided_by_bounds(const MarginClaim& claim, int lower, int upper);
// Narrows lower <= margin <= upper by the bound check proved (none when it was stopped).
void narrow(int& lower, int& upper, const ClaimCheck& check);

// The position after root move m.pit of p and the claims on its margin that prove m's bounds
// (the mover's margin after an extra turn, the negated one after the opponent moves); a bound
// that any position of that many stones has is left out.
struct MoveClaims {
  int pit = 0;
  Position child;
  std::vector<MarginClaim> claims;
};
MoveClaims claims_for_move(Rules rules, const Position& p, const MoveBound& m);

// What the certificate's commands need besides the claims: the rule set and how the solve read
// the database (`db_path` and its levels 0..db_stones, or none when db_stones < 0).
struct CertificateSource {
  Rules rules = Rules::kWetherell;
  std::string db_path;
  int db_stones = -1;
};

// The certificate of solve result r of p: a POSIX shell script whose comments state the position,
// its proven margin, the principal variation and each root move's proven bound, and whose
// commands, one a move, each prove that move's claims on the position after it (`kalah solve
// ... --at-least L --at-most U 'POSITION'`, exit status 0 when they hold); the script stops at
// the first claim that does not hold.
std::string certificate_text(const Position& p, const SolveResult& r,
                             const CertificateSource& source);

}  // namespace kalah::cli
