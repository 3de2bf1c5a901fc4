#!/usr/bin/env bash
# Kalah(6,4), the published values (Irving, Donkers & Uiterwijk): from the start position, 6 pits
# and 4 stones each, South to move, rule set `kalah` wins by +8 and `kalah-empty-capture` by +10,
# both with the single best move 3. Builds a <= MAX_STONES table of each rule set with `kalah gen`
# in DB_DIR (under the build tree; removed again at the end), then checks `kalah solve --json`.
# Usage: kalah_6x4_published_values.sh KALAH_BINARY DB_DIR [MAX_STONES]
# Slow (CTest label `slow`: tools/test.sh runs it in the release pass only).
set -euo pipefail
kalah=$1
db=$2
max_stones=${3:-20}

rm -rf "$db"
trap 'rm -rf "$db"' EXIT

failures=0
check() {  # check RULES MARGIN
  local rules=$1 margin=$2 out
  "$kalah" gen --rules "$rules" --pits 6 --max-stones "$max_stones" --db "$db" --quiet >/dev/null
  out=$("$kalah" solve --pits 6 --stones 4 --rules "$rules" --db "$db" --json --quiet)
  echo "$rules: $out"
  if ! python3 - "$rules" "$margin" "$max_stones" "$out" <<'PY'; then
import json, sys
rules, margin, max_stones, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
j = json.loads(out)
want = {"position": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S", "rules": rules, "complete": True,
        "outcome": "win", "margin": margin, "lower": margin, "upper": margin, "best_moves": [3],
        "db_stones": max_stones}
bad = [f"{k}: {j.get(k)!r}, expected {v!r}" for k, v in want.items() if j.get(k) != v]
if (j.get("pv") or [None])[0] != 3:
    bad.append(f"pv: {j.get('pv')!r}, expected to start with 3")
for b in bad:
    print(f"FAILED: {rules} Kalah(6,4): {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    failures=$((failures + 1))
  fi
}

check kalah 8
check kalah-empty-capture 10
if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "OK: Kalah(6,4) kalah +8, kalah-empty-capture +10, best move 3 for both"
