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
  local rules=$1 margin=$2 out want
  "$kalah" gen --rules "$rules" --pits 6 --max-stones "$max_stones" --db "$db" --quiet >/dev/null
  out=$("$kalah" solve --pits 6 --stones 4 --rules "$rules" --db "$db" --json --quiet)
  echo "$rules: $out"
  for want in '"position": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 S"' "\"rules\": \"$rules\"" \
    '"complete": true' '"outcome": "win"' "\"margin\": $margin," "\"lower\": $margin," \
    "\"upper\": $margin," '"best_moves": [3],' '"pv": [3,' "\"db_stones\": $max_stones,"; do
    if ! grep -qF -- "$want" <<<"$out"; then
      echo "FAILED: $rules Kalah(6,4): expected $want" >&2
      failures=$((failures + 1))
    fi
  done
}

check kalah 8
check kalah-empty-capture 10
if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "OK: Kalah(6,4) kalah +8, kalah-empty-capture +10, best move 3 for both"
