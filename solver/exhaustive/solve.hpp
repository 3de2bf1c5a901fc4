// Exhaustive solver: the exact margin of a position, its best moves and a principal variation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/oracle.hpp"
#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve_tt.hpp"

namespace kalah {

// Proven bounds kept between solves (SolveOptions::tt).
using SolveTT = solve_detail::SolveTT;

struct SolveResult;

// SolveOptions::tt_skip_above_db when the table is in memory, under the extra-turn rule sets
// (docs/SOLVER.md, "The database at the leaves").
inline constexpr int kTTSkipAboveResident = 4;

// One null-window test at the root (SolveOptions::on_test): the claim "margin >= level" on the
// root position (pit 0) or on the margin of its move `pit` (1-based), its answer (holds), the
// bound the test proved (margin >= bound when the claim holds, margin <= bound when not), the
// nodes it took, as SolveResult counts them, and whether it went through a best-first top
// (docs/SOLVER.md, "The best-first top"; a top may settle it by budgeted depth-first searches of
// its root without growing a tree) or was searched depth-first.
struct RootTest {
  int pit = 0;
  int level = 0;
  bool holds = false;
  int bound = 0;
  std::uint64_t nodes = 0;
  std::uint64_t expanded = 0;
  bool best_first = false;
};

struct SolveOptions {
  // Probed at every node with at most oracle->max_stones() stones in pits, and at every node of
  // the first few plies (an opening book beyond the levels may know them); an answer is taken as
  // exact. Must answer for the same rule set and board size as the solved position.
  ExactOracle* oracle = nullptr;
  // The TT's size; rounded down to a power of two of 64-byte buckets (at least one),
  // allocated whole when the solve starts. When `tt` is given, only the automatic memo's
  // budget (memo_stones).
  std::size_t tt_bytes = std::size_t(64) << 20;
  // With neither `tt` nor 0: the solve's TT starts at this size and doubles as it fills, up
  // to tt_bytes (SolveTT's growable TT), touching only the memory it uses; a small game then
  // costs no more memory than its proof needs.
  std::size_t tt_start_bytes = 0;
  // A TT kept by the caller instead of one allocated for this solve: what earlier
  // solves proved in it is reused, and what this one proves stays for later ones. Any number of
  // solves, of any rule sets and board sizes, may share it at once: an entry is a bound proven for
  // one arrangement of pits under one rule set, true whatever position it is reached from, and the
  // keys of different rule sets and board sizes are salted apart (docs/SOLVER.md).
  SolveTT* tt = nullptr;
  // Boards with at most this many stones in pits are solved once each by plain minimax and kept
  // in a dense array of C(n + 2m - 1, 2m - 1) bytes per level n (filled lazily; at most 126).
  // -1: chosen from the rules and the position's stones in pits, within min(tt_bytes / 4, 64 MiB)
  // (root_solver.hpp); 0: none.
  int memo_stones = -1;
  double max_seconds = 0;  // 0: unlimited; otherwise the solve stops with complete = false
  // false: stop as soon as the margin is proven (complete, best_moves and pv left empty).
  bool find_moves = true;
  // With find_moves: after the best moves, the exact margin of every other move (SolveResult::
  // moves), the threads sharing the moves out, each move's proof starting from the bounds the
  // root's proof left it.
  bool every_move = false;
  // With find_moves: false leaves the principal variation out.
  bool find_pv = true;
  // MTD(f)'s first guess: when the root has at least 20 stones in pits beyond the oracle's
  // levels, the play-time engine (heuristic alpha-beta, the oracle at its leaves) searches this
  // many plies and its value is the guess; otherwise, or with 0, the guess is 0. With more than
  // one thread the test of guess 0 runs on the others meanwhile, and a guess that gives another
  // test is tested next unless that test's answer decides it. A cancel cuts the engine short (a
  // shallower guess). A guess only orders the tests: the result is exact either way. Engine
  // nodes are not counted in nodes.
  int guess_depth = 16;
  // Threads of the MTD(f) tests and the moves' tests (sharing the TT, solve_search.hpp); the PV
  // uses one. With one thread and no time limit node counts are deterministic; with more they
  // vary run to run.
  int threads = 1;
  // Boards with at most this many stones in pits beyond the oracle's levels skip the TT: their
  // subtrees end in database reads within a few plies, and searching them again costs less than
  // the TT's random reads (docs/SOLVER.md). -1: kTTSkipAboveResident when the oracle's table is
  // in memory and the rules give extra turns (kalah, kalah-empty-capture), else 0 (wetherell's
  // relays make those subtrees large). Values are exact either way; node counts differ.
  int tt_skip_above_db = -1;
  // The best-first top (docs/SOLVER.md, "The best-first top"): each null-window test keeps the
  // nodes within this many moves of its root as a tree searched by proof numbers, the depth-first
  // search at its leaves within node budgets (best_first_budget for a leaf's first search, each
  // later one twice its last; with several threads, each thread's). 0: every test depth-first.
  // -1: with every_move, kAnalysisBestFirstPlies in the tests one thread runs by itself (every
  // test on one thread; on several, each thread's tests of a root move of its own); without it,
  // kRefutationBestFirstPlies in the tests expected to fail: on one thread those of the whole
  // team, on several those a thread runs by itself (refutation_alone_best_first_plies).
  // Values are exact either way; node counts differ.
  int best_first_plies = -1;
  std::uint64_t best_first_budget = 4096;
  // When set, gets a status line (time, nodes, rate, the proven bounds, what the solve is testing)
  // about once a second.
  std::function<void(const std::string& line)> progress;
  // When set, the solve stops as at its deadline (complete = false) once *cancel is true.
  const std::atomic<bool>* cancel = nullptr;
  // Bounds proven by an earlier solve of the same position under the same rules, stopped before
  // it finished (its SolveResult as on_proven or the stop gave it: lower, upper and moves): the
  // solve starts from them and skips the tests they decide. With the earlier solve's `tt`, what
  // it proved below the root is reused too (a checkpoint keeps both: checkpoint.hpp).
  const SolveResult* resume = nullptr;
  // When set, gets the result so far after every test at the root (each narrows the margin's or a
  // move's bounds): while the margin is sought, once it and the best moves are exact (best_moves
  // set), then (every_move) as the other moves' bounds close. Called from the solve's threads, one
  // call at a time; lower, upper and moves hold what is proven.
  std::function<void(const SolveResult& so_far)> on_proven;
  // When set (threads must be 1), called with each position the solve's search expands (generates
  // the moves of: SolveResult::expanded counts them), as the mover's pits (South's, to move) and
  // the opponent's with empty kalahs, and the window (alpha, beta) it is searched in: the trace of
  // `kalah solve --trace-expanded`, for comparing the positions two solvers expand.
  std::function<void(const Position& p, int alpha, int beta)> trace_expanded;
  // When set (threads must be 1), called after each null-window test at the root, of the root
  // itself or of one of its moves, with its claim, its answer and the nodes it took: the trace of
  // `kalah solve --trace-tests`, for seeing which tests a proof's nodes go to. Not called for a
  // test the deadline or a cancel stopped, nor for the principal variation's searches.
  std::function<void(const RootTest& t)> on_test;
  // The perfect-order limit (kalah bench solve --perfect-order): a TT that an earlier, finished
  // solve of the same position with the same rules and options filled as its `tt`. At every node
  // the TT covers, the move that TT stored (the move that proved the node's bound there) is
  // searched first, in place of this solve's own TT move. Only read; the values are exact either
  // way, only the order of the moves changes.
  const SolveTT* move_source = nullptr;
};

// A move's margin for the side to move at the root: lower <= margin <= upper, proven.
struct MoveBound {
  int pit = 0;  // 1-based
  int lower = 0, upper = 0;
  bool exact() const { return lower == upper; }
  bool operator==(const MoveBound&) const = default;
};

// What a solve's best-first tops held, summed over the tests that ended (SolveResult::top_tree).
// A position reached twice within a test's tree is two nodes (a transposition within the tree;
// the TT shares what their searches proved).
struct TreeCounts {
  std::uint64_t nodes = 0;              // the nodes the trees made
  std::uint64_t repeated = 0;           // of them, a position an earlier node of its tree held
  std::uint64_t expanded = 0;           // the nodes the trees expanded (gave children)
  std::uint64_t repeated_expanded = 0;  // of them, a position expanded earlier in its tree
  TreeCounts& operator+=(const TreeCounts& o) {
    nodes += o.nodes;
    repeated += o.repeated;
    expanded += o.expanded;
    repeated_expanded += o.repeated_expanded;
    return *this;
  }
};

struct SolveResult {
  // True when margin, best_moves, pv and every move's margin (unless not asked for) are all
  // proven. When false, only lower/upper and moves hold (the time ran out, or the solve was
  // cancelled); lower == upper means the margin is known, the moves not.
  bool complete = false;
  int margin = 0;  // RULES.md margin for the side to move; meaningful only when complete
  int lower = 0;   // proven: lower <= margin <= upper (equal when complete)
  int upper = 0;
  std::vector<int> best_moves;  // every 1-based pit that achieves the margin, ascending
  // 1-based pits from the position to the end of the game; after an extra turn (kalah rules) the
  // same side moves again. Starts with one of best_moves; every move in it is optimal.
  std::vector<int> pv;
  // With find_moves, every legal move, ascending pit, with the bounds proven on its margin: exact
  // for the best moves once they are known and, with every_move, for all when complete.
  std::vector<MoveBound> moves;
  std::uint64_t nodes = 0;        // search nodes, verification of best moves and pv included
  std::uint64_t oracle_hits = 0;  // nodes answered by the oracle
  // Nodes whose moves were searched: not answered by the game's end, the bounds, the oracle, the
  // memo or a TT cutoff (the nodes Irving's solver counts; nodes counts every position visited).
  std::uint64_t expanded = 0;
  // Nodes settled by TT entries without their moves being searched: their own
  // entry, the bounds their parent read from theirs, or an enhanced transposition cutoff (their
  // children's entries).
  std::uint64_t tt_cutoffs = 0;
  // With best_first_plies: the most nodes a test's tree held, and their bytes.
  std::uint64_t top_nodes = 0;
  std::uint64_t top_bytes = 0;
  TreeCounts top_tree;  // with a best-first top
  double seconds = 0;
  // Thread-seconds the threads beyond the first spent waiting while the solve ran (threads - 1
  // times seconds, less the time they searched): phases one thread works alone (the principal
  // variation) and threads left without a root move to take.
  double idle_seconds = 0;
};

// The root moves' proven bounds in words: "pit 1 = 0, pit 2 <= -4, pit 3 in [-6, 2]" (a move whose
// upper bound is below the root's lower bound is shown by its upper bound alone: it is not best).
std::string moves_text(const SolveResult& r);

// The size an automatic TT (auto_tt_bytes) starts at when it may grow (tt_start_bytes).
inline constexpr std::size_t kAutoTtStartBytes = std::size_t(64) << 20;

// The best-first top's plies in the every-move analysis (best_first_plies -1 with every_move) for
// the tests one thread runs by itself: every test on one thread; on several, the tests of the
// phases that give each thread a root move of its own (the moves' settling and the analysis).
// There the top expands fewer nodes in less time than the depth-first search in all, on most
// positions measured; on a solve's value alone, or in a test all threads search together (they
// repeat each other's leaves), it does not (docs/PERFORMANCE.md, "The best-first top").
inline constexpr int kAnalysisBestFirstPlies = 16;
// The plies of the best-first top a solve with `opt` keeps in a test all its threads search
// together (0: none).
inline int best_first_plies(const SolveOptions& opt) {
  if (opt.best_first_plies >= 0) return opt.best_first_plies;
  return opt.every_move && opt.threads <= 1 ? kAnalysisBestFirstPlies : 0;
}
// ... in a test one of several threads searches by itself (a root move of its own).
inline int one_thread_best_first_plies(const SolveOptions& opt) {
  if (opt.best_first_plies >= 0) return opt.best_first_plies;
  return opt.every_move ? kAnalysisBestFirstPlies : 0;
}

// The refutation top (best_first_plies -1 without every_move, on one thread): the tests a solve
// expects to fail (a move's climb above the margin proven, the other moves against it, MTD(f)'s
// tests above its guess) keep a top of this many plies whose root is searched depth-first
// within kRefutationRootExpandAfter first budgets before it grows a tree; the tests expected to
// succeed stay depth-first. Measured against a top in every test and against tops on several
// threads in docs/PERFORMANCE.md ("The best-first top") and docs/NOT-KEPT.md.
inline constexpr int kRefutationBestFirstPlies = 16;
inline constexpr std::uint64_t kRefutationRootExpandAfter = 256;
// The plies of the refutation top a solve with `opt` keeps (0: none).
inline int refutation_best_first_plies(const SolveOptions& opt) {
  if (opt.best_first_plies >= 0) return 0;  // every test as --best-first says
  return !opt.every_move && opt.threads <= 1 ? kRefutationBestFirstPlies : 0;
}
// On several threads (best_first_plies -1 without every_move), the refutation top's plies in the
// tests one thread runs by itself: the moves after the first, settled one a thread, each thread
// with a top of its own. The solve keeps those tops only under the rule sets whose other moves go
// through the refutation top on one thread (SolveTuning's kRefuteOtherMoves). The tests all
// threads search together stay depth-first: their shared tree's threads mostly repeat each
// other's leaves.
inline int refutation_alone_best_first_plies(const SolveOptions& opt) {
  if (opt.best_first_plies >= 0) return 0;
  return !opt.every_move && opt.threads > 1 ? kRefutationBestFirstPlies : 0;
}

// The TT a solve of p needs (`kalah solve --tt-mb 0`): sized from the stones in
// pits beyond the oracle's levels (oracle_stones; -1: no oracle): 64 MiB up to 24, doubled for
// every 2 more; from 48 stones in pits (longer games: larger trees for as many beyond), 64 MiB up
// to 20, doubled for every stone more; when the levels just above a table in memory skip the TT
// (tt_skip_levels: it then holds far fewer positions), 16 MiB up to 28, doubled for every 2
// more; at most 2 GiB and a quarter of the memory.
// The tree grows with the stones beyond the database, and a TT larger than the solve needs
// costs its first touch and longer memory latency (docs/PERFORMANCE.md, solver).
std::size_t auto_tt_bytes(const Position& p, int oracle_stones, bool tt_skip_levels);
// The same for a solve under `rules` with tt_skip_above_db -1 (tt_skip_by_default).
std::size_t auto_tt_bytes(Rules rules, const Position& p, const ExactOracle* oracle);

// Whether tt_skip_above_db -1 makes the levels just above the oracle's table skip the TT: the
// oracle is a Probe with its table in memory and the rule set gives extra turns.
bool tt_skip_by_default(Rules rules, const ExactOracle* oracle);
// Whether the solver's tuning for `rules` skips the TT just above a table in memory
// (SolveTuning<R>::kTTSkipAboveResident).
bool tt_skip_tuned(Rules rules);

// Solves p under `rules` by MTD(f) null-window searches over future margins (see solve_search.hpp).
// With the same options, one thread and no time limit, node counts are deterministic.
// A position whose game is over has its final margin and no moves.
SolveResult solve(Rules rules, const Position& p, const SolveOptions& opt = {});

// One null-window test of p: "margin >= beta?" (RULES.md margin, kalahs included), answered with a
// proven bound: margin >= bound when at_least, else margin <= bound. The parts of a solve spread
// over processes (root_split.hpp) are these tests. opt's oracle, tt, threads, memo, time and
// cancel apply; resume's root bounds only narrow the margin the progress line shows; moves, PV and
// guess do not apply. With expect_failure (the caller expects margin < beta) the test goes through
// the refutation top where a solve's tests would (refutation_best_first_plies).
struct TestResult {
  bool stopped = false;  // the time ran out or the test was cancelled first: no bound
  bool at_least = false;
  int bound = 0;
  std::uint64_t nodes = 0;
  std::uint64_t expanded = 0;
  double seconds = 0;
};
TestResult solve_test(Rules rules, const Position& p, int beta, const SolveOptions& opt = {},
                      bool expect_failure = false);

// The engine's first guess for p (SolveOptions::guess_depth) as a margin: the margin one thread's
// solve() makes its first MTD(f) test at; p's kalah difference when p is too near the oracle's
// levels for a guess. opt.cancel cuts the engine short (a shallower guess).
int solve_guess(Rules rules, const Position& p, const SolveOptions& opt = {});

}  // namespace kalah
