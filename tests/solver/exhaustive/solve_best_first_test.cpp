// The solver's best-first top (SolveOptions::best_first_plies): the answers of the depth-first
// search, on one thread and two, stopped, in single tests, and with a tree that outgrows its room;
// what the trees count; the every-move analysis keeps one by default, and a solve a refutation top
// (on several threads, each thread its own in the moves it settles alone).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <tuple>

#include "engine/byte_array_board.hpp"
#include "engine/rules/kalah.hpp"
#include "solver/exhaustive/proof_tree.hpp"
#include "solver/exhaustive/solve.hpp"
#include "tests/support/solve_test_util.hpp"

namespace kalah {
namespace {

using namespace test;

SolveOptions best_first_options(int plies, std::uint64_t budget) {
  SolveOptions opt = small_options();
  opt.best_first_plies = plies;
  opt.best_first_budget = budget;
  return opt;
}

// Whether r, a one-thread solve of p with opt, visited other nodes than the same solve
// depth-first (best_first_plies 0), which keeps no top.
bool nodes_differ_from_depth_first(Rules rules, const Position& p, const SolveOptions& opt,
                                   const SolveResult& r) {
  SolveOptions plain = opt;
  plain.best_first_plies = 0;
  const SolveResult depth_first = solve(rules, p, plain);
  EXPECT_EQ(depth_first.top_nodes, 0u);
  return depth_first.nodes != r.nodes;
}

// p's future: its margin with both kalahs emptied, what a tree's test of p's board decides.
int future_of(ReferenceMinimax& naive, Position p) {
  p.own_kalah() = p.opp_kalah() = 0;
  return naive.margin(p);
}

// Small budgets make the tree grow: its answers are the minimax's, every move's too, with or
// without an oracle, on one thread or two.
TEST(BestFirst, TopGivesTheMinimaxAnswers) {
  std::mt19937_64 rng(2026);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    int grown = 0, nodes_differ = 0;
    for (int trial = 0; trial < 16; ++trial) {
      const Position p = random_position(rules, 3, 3, rng);
      SolveOptions opt = best_first_options(2 + trial % 5, 4 + trial);
      ReferenceOracle oracle(rules, 4);
      opt.threads = 1 + trial % 2;
      if (trial % 3 == 0 && opt.threads == 1) opt.oracle = &oracle;  // not thread-safe
      opt.every_move = trial % 4 == 1;
      const SolveResult r = solve(rules, p, opt);
      check_result(rules, p, r, naive);
      if (opt.every_move)
        for (const MoveBound& m : r.moves) {
          EXPECT_TRUE(m.exact()) << to_string(p) << " pit " << m.pit;
          EXPECT_EQ(m.lower, naive.move_value(p, m.pit)) << to_string(p) << " pit " << m.pit;
        }
      grown += r.top_nodes > 1;
      EXPECT_EQ(r.top_bytes == 0, r.top_nodes == 0);
      const TreeCounts& tree = r.top_tree;
      EXPECT_GE(tree.nodes, r.top_nodes);  // the sum over tests of trees, the largest one
      EXPECT_LT(tree.expanded, std::max<std::uint64_t>(tree.nodes, 1));
      EXPECT_LE(tree.repeated_expanded, std::min(tree.repeated, tree.expanded));
      if (opt.threads == 1) nodes_differ += nodes_differ_from_depth_first(rules, p, opt, r);
    }
    EXPECT_GT(grown, 0) << rules_name(rules) << ": no test grew a tree";
    EXPECT_GT(nodes_differ, 0) << rules_name(rules) << ": the top changed no search";
  }
}

// A solve of one thread keeps a refutation top by default (best_first_plies -1): with small budgets
// its trees grow, and its answers are the minimax's, with or without the moves, with or without an
// oracle; none with two threads or with every_move.
TEST(BestFirst, TheRefutationTopGivesTheMinimaxAnswers) {
  std::mt19937_64 rng(2027);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    int grown = 0, nodes_differ = 0;
    for (int trial = 0; trial < 24; ++trial) {
      const Position p = random_position(rules, 3, 4, rng);
      SolveOptions opt = small_options();
      ASSERT_EQ(opt.best_first_plies, -1);
      ASSERT_EQ(refutation_best_first_plies(opt), kRefutationBestFirstPlies);
      opt.best_first_budget = 1;  // the root grows a tree after 256 nodes
      ReferenceOracle oracle(rules, 4);
      if (trial % 3 == 0) opt.oracle = &oracle;
      opt.find_moves = trial % 4 != 3;
      const SolveResult r = solve(rules, p, opt);
      if (opt.find_moves) {
        check_result(rules, p, r, naive);
      } else {
        ASSERT_TRUE(r.complete) << to_string(p);
        EXPECT_EQ(r.margin, naive.margin(p)) << to_string(p);
      }
      grown += r.top_nodes > 1;
      nodes_differ += nodes_differ_from_depth_first(rules, p, opt, r);
    }
    EXPECT_GT(grown, 0) << rules_name(rules) << ": no refutation grew a tree";
    EXPECT_GT(nodes_differ, 0) << rules_name(rules) << ": the top changed no search";
  }
  SolveOptions two = small_options();
  two.threads = 2;
  EXPECT_EQ(refutation_best_first_plies(two), 0);
  SolveOptions every = small_options();
  every.every_move = true;
  EXPECT_EQ(refutation_best_first_plies(every), 0);
  SolveOptions told = small_options();
  told.best_first_plies = 8;
  EXPECT_EQ(refutation_best_first_plies(told), 0);
}

// On two threads a solve settles the moves after the first one a thread, each thread through a
// refutation top of its own (refutation_alone_best_first_plies) under the rule sets whose other
// moves go through the top on one thread (SolveTuning's kRefuteOtherMoves: not
// kalah-empty-capture); with small budgets its trees grow, and the answers are the minimax's.
TEST(BestFirst, TwoThreadsRefuteTheOtherMovesEachThroughItsOwnTop) {
  std::mt19937_64 rng(2028);
  SolveOptions opt = small_options();
  opt.threads = 2;
  ASSERT_EQ(refutation_best_first_plies(opt), 0);
  ASSERT_EQ(refutation_alone_best_first_plies(opt), kRefutationBestFirstPlies);
  opt.best_first_budget = 1;  // the root grows a tree after 256 nodes
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    int grown = 0, topped = 0, shared_out = 0;
    for (int trial = 0; trial < 24; ++trial) {
      const Position p = random_position(rules, 3, 4, rng);
      const SolveResult r = solve(rules, p, opt);
      check_result(rules, p, r, naive);
      grown += r.top_nodes > 1;
      topped += r.top_nodes > 0;
      shared_out += !is_over(rules, p) && r.moves.size() >= 3;  // the moves one a thread
    }
    if (rules == Rules::kKalahEmptyCapture) {
      EXPECT_GT(shared_out, 0) << "no position shared its moves out one a thread";
      EXPECT_EQ(topped, 0) << "kalah-empty-capture's other moves stay depth-first";
    } else {
      EXPECT_GT(grown, 0) << rules_name(rules) << ": no thread's refutation grew a tree";
    }
  }
  SolveOptions one = small_options();
  EXPECT_EQ(refutation_alone_best_first_plies(one), 0);
  SolveOptions every = small_options();
  every.threads = 2;
  every.every_move = true;
  EXPECT_EQ(refutation_alone_best_first_plies(every), 0);
  SolveOptions told = every;
  told.every_move = false;
  told.best_first_plies = 0;
  EXPECT_EQ(refutation_alone_best_first_plies(told), 0);
}

// A cancelled solve stops inside the tree with bounds that hold (the depth-first solve's margin).
TEST(BestFirst, CancelledSolveKeepsBoundsThatHold) {
  for (Rules rules : kAllRules) {
    const Position p = start_position(5, 3, Side::kSouth);
    SolveOptions plain = small_options();
    plain.tt_bytes = 1 << 22;
    const SolveResult exact = solve(rules, p, plain);
    ASSERT_TRUE(exact.complete);
    ASSERT_GT(exact.nodes, 50'000u) << "a solve too small to be cancelled at a poll";
    for (int threads = 1; threads <= 2; ++threads) {
      const std::atomic<bool> cancel{true};
      SolveOptions opt = plain;
      opt.best_first_plies = 4;
      opt.best_first_budget = 8;
      opt.cancel = &cancel;
      opt.threads = threads;
      const SolveResult r = solve(rules, p, opt);
      EXPECT_FALSE(r.complete) << rules_name(rules);
      EXPECT_LE(r.lower, exact.margin) << rules_name(rules);
      EXPECT_GE(r.upper, exact.margin) << rules_name(rules);
    }
  }
}

// One null-window test through the tree proves the bound it reports.
TEST(BestFirst, NullWindowTestsProveTheirBound) {
  std::mt19937_64 rng(99);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    for (int trial = 0; trial < 10; ++trial) {
      const Position p = random_position(rules, 3, 3, rng);
      const int margin = naive.margin(p);
      const int beta = margin + int(rng() % 7) - 3;
      const TestResult t = solve_test(rules, p, beta, best_first_options(4, 4));
      ASSERT_FALSE(t.stopped);
      EXPECT_EQ(t.at_least, margin >= beta) << to_string(p) << " beta " << beta;
      if (t.at_least)
        EXPECT_LE(t.bound, margin) << to_string(p);
      else
        EXPECT_GE(t.bound, margin) << to_string(p);
    }
  }
}

// A single test the caller expects to fail (kalah solve --at-most) goes through the refutation
// top: the same bound, other nodes.
TEST(BestFirst, TestsExpectedToFailProveTheirBound) {
  std::mt19937_64 rng(31);
  for (Rules rules : kAllRules) {
    ReferenceMinimax naive(rules);
    int nodes_differ = 0;
    for (int trial = 0; trial < 10; ++trial) {
      const Position p = random_position(rules, 3, 4, rng);
      const int margin = naive.margin(p);
      const int beta = margin + 1 + int(rng() % 3);
      SolveOptions opt = small_options();
      opt.best_first_budget = 1;
      const TestResult refuted = solve_test(rules, p, beta, opt, true);
      const TestResult plain = solve_test(rules, p, beta, opt, false);
      for (const TestResult& t : {refuted, plain}) {
        ASSERT_FALSE(t.stopped);
        EXPECT_FALSE(t.at_least) << to_string(p) << " beta " << beta;
        EXPECT_GE(t.bound, margin) << to_string(p);
      }
      nodes_differ += refuted.nodes != plain.nodes;
    }
    EXPECT_GT(nodes_differ, 0) << rules_name(rules) << ": no refutation changed a search";
  }
}

// A tree that reaches its node limit hands the test to the depth-first search, whose answer
// stands; the tree never holds more than the limit.
TEST(BestFirst, TreeAtItsLimitFinishesDepthFirst) {
  using B = solve_detail::SolveBoard<KalahRules, ByteArrayBoard<>>;
  ReferenceMinimax naive(Rules::kKalah);
  std::mt19937_64 rng(5);
  solve_detail::SolveTT tt(1 << 16);
  int reached = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Position p = random_position(Rules::kKalah, 3, 3, rng);
    if (is_over(Rules::kKalah, p)) continue;
    const int future = future_of(naive, p);
    solve_detail::SearchTeam<B> team(1, solve_detail::TTView(tt, trial + 1), nullptr, nullptr,
                                     nullptr, 0);
    const solve_detail::ProofTreeLimits limits{.plies = 6, .budget = 2, .max_nodes = 20};
    solve_detail::ProofTree<B> tree(team, limits);
    for (int beta = future - 2; beta <= future + 2; beta += 2) {
      const std::optional<int> r = tree.test(B(p), p.pit_stones(), beta);
      ASSERT_TRUE(r.has_value());
      EXPECT_EQ(*r >= beta, future >= beta) << to_string(p) << " beta " << beta;
      EXPECT_TRUE(*r >= beta ? *r <= future : *r >= future) << to_string(p);
    }
    EXPECT_LE(tree.peak_nodes(), limits.max_nodes);
    reached += tree.peak_nodes() + B::kMaxM > limits.max_nodes;
  }
  EXPECT_GT(reached, 0) << "no tree reached its limit";
}

// What a tree counts (ProofTree::counts()): each test adds its tree's nodes, the expanded ones
// among them, and the nodes whose position an earlier node of the same tree held; a root never
// repeats one, a position expanded twice also repeats among all nodes, and deep trees on small
// boards hold such transpositions.
TEST(BestFirst, TreeCountsItsNodesAndTranspositions) {
  using B = solve_detail::SolveBoard<KalahRules, ByteArrayBoard<>>;
  ReferenceMinimax naive(Rules::kKalah);
  std::mt19937_64 rng(12);
  std::uint64_t repeated = 0, repeated_expanded = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const Position p = random_position(Rules::kKalah, 3, 4, rng);
    if (is_over(Rules::kKalah, p)) continue;
    const int future = future_of(naive, p);
    solve_detail::SolveTT tt(1 << 16);
    solve_detail::SearchTeam<B> team(1, solve_detail::TTView(tt, trial + 1), nullptr, nullptr,
                                     nullptr, 0);
    const solve_detail::ProofTreeLimits limits{.plies = 12, .budget = 1, .expand_after = 1};
    solve_detail::ProofTree<B> tree(team, limits);
    std::uint64_t tests = 0;
    for (int beta = future - 2; beta <= future + 2; beta += 2) {
      const TreeCounts before = tree.counts();
      ASSERT_TRUE(tree.test(B(p), p.pit_stones(), beta).has_value());
      ++tests;
      const TreeCounts& after = tree.counts();
      EXPECT_GE(after.nodes, before.nodes + 1) << to_string(p);
      EXPECT_LE(after.nodes, before.nodes + limits.max_nodes) << to_string(p);
    }
    const TreeCounts& c = tree.counts();
    EXPECT_GE(c.nodes, tree.peak_nodes()) << to_string(p);
    EXPECT_LE(c.repeated + tests, c.nodes) << to_string(p);
    EXPECT_LE(c.expanded + tests, c.nodes) << to_string(p);  // every tree has a leaf
    EXPECT_LE(c.repeated_expanded, std::min(c.repeated, c.expanded)) << to_string(p);
    repeated += c.repeated;
    repeated_expanded += c.repeated_expanded;
  }
  EXPECT_GT(repeated, 0u) << "no tree held a position twice";
  EXPECT_GT(repeated_expanded, 0u) << "no tree expanded a position twice";
}

// A root searched depth-first longer before its tree grows (root_expand_after), and first budgets
// that grow with the test (budget_share): the answers stand; a root that settles within its
// depth-first budgets grows no tree, one that does not grows one; a share changes the search.
TEST(BestFirst, GrowingBudgetsKeepTheAnswers) {
  using B = solve_detail::SolveBoard<KalahRules, ByteArrayBoard<>>;
  ReferenceMinimax naive(Rules::kKalah);
  std::mt19937_64 rng(8);
  int grown = 0, flat = 0, share_changed = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const Position p = random_position(Rules::kKalah, 3, 4, rng);
    if (is_over(Rules::kKalah, p)) continue;
    const int future = future_of(naive, p);
    const int beta = future + 2 * int(trial % 2);  // succeeds, then fails
    const solve_detail::ProofTreeLimits limits{.plies = 8,
                                               .budget = 1,
                                               .expand_after = 2,
                                               .root_expand_after = std::uint64_t(4) << (trial % 6),
                                               .budget_share = std::uint64_t(trial % 3)};
    // The test by a tree of these limits on a fresh TT: its answer, the nodes it spent, its peak.
    const auto run = [&](const solve_detail::ProofTreeLimits& l) {
      solve_detail::SolveTT tt(1 << 16);
      solve_detail::SearchTeam<B> team(1, solve_detail::TTView(tt, trial + 1), nullptr, nullptr,
                                       nullptr, 0);
      solve_detail::ProofTree<B> tree(team, l);
      const std::optional<int> r = tree.test(B(p), p.pit_stones(), beta);
      return std::tuple(r, team.main().nodes(), tree.peak_nodes());
    };
    const auto [r, spent, peak] = run(limits);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r >= beta, future >= beta) << to_string(p) << " beta " << beta;
    EXPECT_TRUE(*r >= beta ? *r <= future : *r >= future) << to_string(p);
    if (spent <= limits.budget * limits.root_expand_after) {
      EXPECT_EQ(peak, 1u) << to_string(p);
    }
    grown += peak > 1;
    flat += peak == 1;
    if (limits.budget_share != 0 && peak > 1) {
      solve_detail::ProofTreeLimits fixed = limits;
      fixed.budget_share = 0;
      share_changed += std::get<1>(run(fixed)) != spent;
    }
  }
  EXPECT_GT(grown, 0) << "no tree grew";
  EXPECT_GT(flat, 0) << "every root grew a tree";
  EXPECT_GT(share_changed, 0) << "budget_share changed no tree's search";
}

// The every-move analysis keeps a best-first top unless told not to (best_first_plies -1 with
// every_move is kAnalysisBestFirstPlies): on one thread in every test, on two in each thread's
// tests of a root move of its own; a solve of the value and best moves keeps no analysis top; the
// answers are the same.
TEST(BestFirst, TheEveryMoveAnalysisKeepsATopByDefault) {
  for (Rules rules : kAllRules) {
    const Position p = start_position(4, 3, Side::kSouth);
    SolveOptions opt = small_options();
    opt.every_move = true;
    ASSERT_EQ(opt.best_first_plies, -1);
    ASSERT_EQ(opt.threads, 1);
    ASSERT_EQ(best_first_plies(opt), kAnalysisBestFirstPlies);
    const SolveResult top = solve(rules, p, opt);
    EXPECT_GT(top.top_nodes, 0u) << rules_name(rules);
    opt.best_first_plies = 0;
    const SolveResult depth_first = solve(rules, p, opt);
    EXPECT_EQ(depth_first.top_nodes, 0u) << rules_name(rules);
    ASSERT_TRUE(top.complete && depth_first.complete);
    EXPECT_EQ(top.margin, depth_first.margin) << rules_name(rules);
    ASSERT_EQ(top.moves.size(), depth_first.moves.size());
    for (std::size_t i = 0; i < top.moves.size(); ++i) {
      EXPECT_TRUE(top.moves[i].exact()) << rules_name(rules);
      EXPECT_EQ(top.moves[i].lower, depth_first.moves[i].lower) << rules_name(rules);
    }
    SolveOptions value = small_options();  // a refutation top at most, which grows no tree here
    EXPECT_EQ(best_first_plies(value), 0);
    EXPECT_LE(solve(rules, p, value).top_nodes, 1u) << rules_name(rules);
    SolveOptions two = small_options();
    two.every_move = true;
    two.threads = 2;
    EXPECT_EQ(best_first_plies(two), 0);
    EXPECT_EQ(one_thread_best_first_plies(two), kAnalysisBestFirstPlies);
    const SolveResult own = solve(rules, p, two);
    EXPECT_GT(own.top_nodes, 0u) << rules_name(rules);
    two.best_first_plies = 0;
    const SolveResult shared = solve(rules, p, two);
    EXPECT_EQ(shared.top_nodes, 0u) << rules_name(rules);
    for (const SolveResult& r : {own, shared}) {
      ASSERT_TRUE(r.complete);
      EXPECT_EQ(r.margin, depth_first.margin) << rules_name(rules);
      EXPECT_EQ(r.moves, depth_first.moves) << rules_name(rules);
    }
  }
}

}  // namespace
}  // namespace kalah
