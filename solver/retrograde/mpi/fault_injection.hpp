// The distributed build's test hook that kills a process, as a crashed machine would.
#pragma once

namespace kalah {

// Whether `spec` (KALAH_TEST_KILL_AT's value, "RANK:LEVEL"; nullptr when unset) names process
// `rank` starting level n. A spec that does not start with RANK:LEVEL names no process.
bool kill_requested(const char* spec, int rank, int n);

// Test hook (docs/DISTRIBUTED.md, "Faults"): KALAH_TEST_KILL_AT=RANK:LEVEL kills process RANK
// (SIGKILL) as it starts level LEVEL.
void maybe_killed(int rank, int n);

}  // namespace kalah
