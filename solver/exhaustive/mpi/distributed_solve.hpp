// `mpirun -np P kalah solve`: process 0 settles the root's moves, the other processes test them
// (the definitions are built with MPI only, KALAH_MPI).
#pragma once

#include <functional>
#include <string>

#include "engine/position.hpp"
#include "engine/rules.hpp"
#include "solver/exhaustive/solve.hpp"

namespace kalah {

// Process 0's part: settles every root move of p (RootSplit, first tests at `guess`, starting
// from `resume` when given) by tests it sends to processes 1..processes-1, each test to one
// process at a time, until the margin and best moves are exact or max_seconds (0: none) pass. The
// result holds the bounds proven, complete when exact, with the nodes of every process's tests
// (no principal variation). on_proven gets the result so far and a line of the moves' state after
// every test. Collective with serve_split_tests on the other processes.
SolveResult coordinate_split_solve(
    Rules rules, const Position& p, int guess, const SolveResult* resume, int processes,
    double max_seconds,
    const std::function<void(const SolveResult& so_far, const std::string& state)>& on_proven);

// The other processes' part: runs the tests process 0 sends (solve_test of the position after
// a root move of p, with opt: its oracle, table and threads) until process 0 says the solve is
// over.
void serve_split_tests(Rules rules, const Position& p, SolveOptions opt);

}  // namespace kalah
