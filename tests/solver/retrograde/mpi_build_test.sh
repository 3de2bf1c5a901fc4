#!/usr/bin/env bash
# The distributed build (`mpirun -np P kalah gen`, docs/DISTRIBUTED.md) against the single-process
# build: small tables of all three rule sets on 4 and 6 pits, built on 2 and 3 processes, must be
# the same databases record for record (kalah dump --without-builds); a distributed
# build extends a table that a single process started; a process killed mid-build fails the job
# within the time limit, keeps every committed level, and the same command then completes the
# table.
# Usage: mpi_build_test.sh KALAH_BINARY WORK_DIR
MPI_EXPORT=KALAH_TEST_KILL_AT
source "$(dirname "$0")/../../support/mpi_test_env.sh"
export KALAH_TEST_KILL_AT=""
failures=0
# Each build binds its blocks to an identity of its own: compared without it. A dump that fails
# (a damaged database: its error is on stderr) fails the comparison.
same() {  # same DB_A DB_B WHAT
  local a b
  if ! a=$("$kalah" dump --without-builds --db "$1") ||
    ! b=$("$kalah" dump --without-builds --db "$2"); then
    echo "FAILED: $3: kalah dump failed" >&2
    failures=$((failures + 1))
  elif [[ "$a" == "$b" ]]; then
    echo "ok: $3"
  else
    echo "FAILED: $3: the databases differ" >&2
    failures=$((failures + 1))
  fi
}

for rules in wetherell kalah kalah-empty-capture; do
  for spec in 4:12 6:11; do
    m=${spec%:*} n=${spec#*:}
    one=$work/one-$rules-$m
    "$kalah" gen --rules "$rules" --pits "$m" --max-stones "$n" --db "$one" --quiet >/dev/null
    for p in 2 3; do
      many=$work/many-$rules-$m-$p
      mpi "$p" gen --rules "$rules" --pits "$m" --max-stones "$n" --db "$many" --quiet >/dev/null
      same "$one" "$many" "$rules m=$m <= $n on $p processes"
    done
  done
done

# A single process builds levels 0..8, three processes extend the table to 11.
one=$work/one-kalah-6
ext=$work/extended
"$kalah" gen --rules kalah --pits 6 --max-stones 8 --db "$ext" --quiet >/dev/null
mpi 3 gen --rules kalah --pits 6 --max-stones 11 --db "$ext" --quiet >/dev/null
same "$one" "$ext" "kalah m=6 levels 9..11 on 3 processes after 0..8 on one"

# Process 1 of 3 dies as level 10 starts: the job ends with an error (no process waits
# forever), levels 0..9 stay committed, and the same command completes the table.
killed=$work/killed
export KALAH_TEST_KILL_AT=1:10
start=$(date +%s)
if timeout 120 mpirun --oversubscribe --bind-to none -np 3 -x KALAH_TEST_KILL_AT "$kalah" gen \
  --rules kalah --pits 6 --max-stones 11 --db "$killed" >"$work/killed.log" 2>&1; then
  echo "FAILED: the job with a killed process succeeded" >&2
  failures=$((failures + 1))
else
  rc=$?
  if [[ $rc -eq 124 ]]; then
    echo "FAILED: the job with a killed process hung (timeout)" >&2
    failures=$((failures + 1))
  else
    echo "ok: the job with a killed process failed (exit $rc) after $(($(date +%s) - start)) s"
  fi
fi
export KALAH_TEST_KILL_AT=""
log=$("$kalah" gen --rules kalah --pits 6 --max-stones 9 --db "$killed" 2>&1)
if grep -qF "levels 0..9 already complete" <<<"$log"; then
  echo "ok: levels 0..9 kept"
else
  echo "FAILED: expected levels 0..9 complete after the failure, got: $log" >&2
  failures=$((failures + 1))
fi
mpi 3 gen --rules kalah --pits 6 --max-stones 11 --db "$killed" --quiet >/dev/null
same "$one" "$killed" "kalah m=6 completed on 3 processes after a killed process"

if ((failures > 0)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all distributed builds equal the single-process ones"
