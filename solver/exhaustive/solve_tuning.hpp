// The exhaustive solver's tuning per rule set: heuristics that change its node counts, never its
// values (docs/SOLVER.md says what each does).
#pragma once

#include <concepts>

#include "engine/rules.hpp"

namespace kalah {

// A rule set without a tuning of its own gets the etude's (wetherell's), which assume nothing of
// its captures:
//   kOrderByStonesHanded   moves that hand fewer stones to the opponent are searched first
//                          (docs/SOLVER.md, "Move ordering"); relays make that a poor guide
//   memo_levels(n)         levels of the small-position memo for n stones in pits at the root
//                          (--memo -1): a deep memo pays where the tree is bushy and deep
//   kTTSkipAboveResident the TT skips the counts just above a resident table (--tt-skip -1)
//   kDefenceRounds         the every-move analysis searches the defender's moves near a test's
//                          root in budgeted rounds (the order often tries a failing defence first)
//   kRefutationBudgetShare the refutation top's ProofTreeLimits::budget_share (0: a fixed first
//                          budget): measured to pay on Kalah(6,5) and to cost on the etude's
//                          positions (docs/NOT-KEPT.md)
//   kRefuteOtherMoves      the tests of the moves after the best one go through the refutation
//                          top (on one thread the solve's; on several, settled one a thread,
//                          each thread's own), else depth-first (on one thread the best move's
//                          climb goes through it either way): measured per rule set
//                          (docs/PERFORMANCE.md)
template <class R>
struct SolveTuning {
  static constexpr bool kOrderByStonesHanded = false;
  static constexpr int memo_levels(int n) { return n / 2 - 2; }
  static constexpr bool kTTSkipAboveResident = false;
  static constexpr bool kDefenceRounds = true;
  static constexpr unsigned kRefutationBudgetShare = 0;
  static constexpr bool kRefuteOtherMoves = true;
};

// The extra-turn rule sets (kalah, kalah-empty-capture): the stones handed are a good guide, the
// tree is lean (a shallow memo), the levels above a resident table cost the TT more than they
// give, budgeted defence rounds cost more than they save, and the refutation top's leaves get
// budgets that grow with the test. The other moves' tests go through the refutation top under
// `kalah` (where they are its gain on Kalah(6,4)) and not under `kalah-empty-capture` (where
// they cost on Kalah(6,5)): R::kCaptureOppositeEmpty tells the two apart, it is not the reason.
template <class R>
requires std::derived_from<R, ExtraTurnRules<R>>
struct SolveTuning<R> {
  static constexpr bool kOrderByStonesHanded = true;
  static constexpr int memo_levels(int n) { return n / 4; }
  static constexpr bool kTTSkipAboveResident = true;
  static constexpr bool kDefenceRounds = false;
  static constexpr unsigned kRefutationBudgetShare = 1024;
  static constexpr bool kRefuteOtherMoves = !R::kCaptureOppositeEmpty;
};

}  // namespace kalah
