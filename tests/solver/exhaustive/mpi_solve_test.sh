#!/usr/bin/env bash
# The distributed solve (`mpirun -np P kalah solve`, docs/SOLVER.md "A solve over processes")
# against the single-process solve: on 2 and 3 processes, positions of all three rule sets, with and
# without a database, give the same margin and best moves, and every move's bounds hold its margin;
# a distributed solve stopped by --max-time keeps its bounds in --checkpoint and the next run
# resumes from them to the same answer.
# Usage: mpi_solve_test.sh KALAH_BINARY WORK_DIR
source "$(dirname "$0")/../../support/mpi_test_env.sh"
failures=0
# same ONE MANY WHAT: the two JSON answers agree on margin and best moves, and MANY's move bounds
# hold ONE's exact move values where ONE has them.
same() {
  if python3 - "$1" "$2" <<'PY'; then echo "ok: $3"; else echo "FAILED: $3" >&2; failures=$((failures + 1)); fi
import json, sys
one, many = (json.loads(open(f).read()) for f in sys.argv[1:3])
ok = many["complete"] and (one["margin"], one["best_moves"]) == (many["margin"], many["best_moves"])
exact = {m["pit"]: m["lower"] for m in one["moves"] if m["lower"] == m["upper"]}
ok = ok and all(m["lower"] <= exact.get(m["pit"], m["lower"]) <= m["upper"] for m in many["moves"])
if not ok:
    print(one, many, sep="\n", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

"$kalah" gen --rules kalah --pits 6 --max-stones 8 --db "$work/k8.db" --quiet >/dev/null
cases=(
  "--rules kalah --pits 6 --stones 3 --no-db"
  "--rules wetherell --pits 5 --stones 3 --no-db"
  "--rules kalah-empty-capture --pits 4 --stones 4 --no-db"
  "--rules kalah --pits 6 --stones 3 --db $work/k8.db"
  "--rules wetherell 2,0,1,2,1,3,5/0,2,1,1,2,0,6 N --no-db"
)
i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$kalah" solve $c --threads 1 --tt-mb 16 --json >"$work/one-$i.json"
  for p in 2 3; do
    # shellcheck disable=SC2086
    mpi "$p" solve $c --threads 1 --tt-mb 16 --json >"$work/many-$i-$p.json"
    same "$work/one-$i.json" "$work/many-$i-$p.json" "$c on $p processes"
  done
done

# Stopped by --max-time, resumed from the checkpoint: the bounds are kept and the answer is the
# same. The first run's time is too short to finish.
ckpt=$work/split.ckpt
args=(solve --rules wetherell --pits 6 --stones 2 --no-db --threads 1 --tt-mb 16 --json
      --checkpoint "$ckpt")
mpi 3 "${args[@]}" --max-time 1 >"$work/stopped.json"
python3 - "$work/stopped.json" "$ckpt" <<'PY' && echo "ok: a stopped distributed solve keeps its bounds" || failures=$((failures + 1))
import json, sys
stopped = json.loads(open(sys.argv[1]).read())
with open(sys.argv[2], "rb") as f:
    f.readline()
    kept = json.loads(f.readline())
assert not stopped["complete"], "the first run finished: give it less time"
assert (kept["lower"], kept["upper"]) == (stopped["lower"], stopped["upper"]), (kept, stopped)
assert kept["processes"] == 3 and not kept["table"]
PY
mpi 2 "${args[@]}" >"$work/resumed.json"
"$kalah" solve --rules wetherell --pits 6 --stones 2 --no-db --threads 1 --json >"$work/whole.json"
same "$work/whole.json" "$work/resumed.json" "a distributed solve resumed from its checkpoint"

# A single process's checkpoint holds its table: a distributed run refuses to drop it.
"$kalah" solve --rules wetherell --pits 6 --stones 2 --no-db --threads 1 --tt-mb 16 --max-time 0.5 \
  --checkpoint "$work/single.ckpt" >/dev/null
if mpi 2 solve --rules wetherell --pits 6 --stones 2 --no-db --threads 1 --tt-mb 16 \
  --checkpoint "$work/single.ckpt" >"$work/refused.out" 2>&1; then
  echo "FAILED: a distributed run took a single process's checkpoint" >&2
  failures=$((failures + 1))
elif grep -q "single-process solve's table" "$work/refused.out"; then
  echo "ok: a single process's checkpoint is not overwritten by a distributed run"
else
  echo "FAILED: the refusal does not say why" >&2
  failures=$((failures + 1))
fi

# One process is not a distributed solve.
if mpi 1 solve --rules kalah --pits 4 --stones 2 --no-db >"$work/one.out" 2>&1; then
  echo "FAILED: a distributed solve on one process was accepted" >&2
  failures=$((failures + 1))
else
  grep -q "2 or more processes" "$work/one.out" && echo "ok: one process is refused"
fi

exit $((failures > 0))
