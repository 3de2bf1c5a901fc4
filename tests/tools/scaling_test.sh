#!/usr/bin/env bash
# tools/scaling.sh at 1 and 2 threads on 4-pit boards: a table per workload, a row per thread
# count, the same values at both (exit 0), the generator's packed levels giving its bytes' values;
# a value that differs gives exit 1 with its row shown (each solve asked for its JSON answer and
# its progress lines), a failed solve or an answer missing a field exit 1 and no row; bad
# arguments exit 2.
# Usage: scaling_test.sh SCALING_SH KALAH DIR
set -uo pipefail
script=$1 kalah=$2 dir=$3
rm -rf "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$script" --kalah "$kalah" --threads "1 2" --dir "$dir" --pits 4 --gen-stones 10 \
  --etude 3:8 --kec 3:8 2>/dev/null) || fail "exit status $? on small boards"
rows=$(grep -cE '^\| [12] \| [0-9.]+ \| [0-9.]+x \| [0-9]+ \| [0-9.]+x \|( [0-9.]+ \|)? [0-9a-f]+ \|$' <<<"$out")
[[ $rows == 6 ]] || fail "expected 6 rows, got $rows: $out"
grep -qE '^Machine: .+, [0-9]+ cores, .+ NUMA node\(s\), [0-9?]+ GiB memory, transparent huge pages: ' \
  <<<"$out" || fail "no line naming the machine: $out"
[[ $(grep -c '^Generator: ' <<<"$out") == 1 && $(grep -c '^Solver: ' <<<"$out") == 2 ]] ||
  fail "expected one generator and two solver tables: $out"
[[ $(grep -cE '\| 0 \|$' <<<"$out") == 2 && $(grep -cE '\| 8 \|$' <<<"$out") == 2 ]] ||
  fail "expected margins 0 (wetherell 4x3) and 8 (kalah-empty-capture 4x3) at both counts: $out"

# The generator with its levels packed (--gen-memory-limit): the option in the title, the same
# signature as in bytes.
bytes=$("$script" --kalah "$kalah" --threads 1 --dir "$dir" --pits 4 --gen-stones 20 --only gen \
  2>/dev/null) || fail "exit status $? for the generator in bytes"
packed=$("$script" --kalah "$kalah" --threads "1 2" --dir "$dir" --pits 4 --gen-stones 20 \
  --only gen --gen-memory-limit 3 2>"$dir/packed-err") || fail "exit status $? for packed levels"
grep -q -- '--max-stones 20 --memory-limit 3$' <<<"$packed" || fail "no memory limit in the title: $packed"
grep -q -- 'bench gen .* --memory-limit 3 --threads 2' "$dir/packed-err" ||
  fail "bench gen not run with the limit: $(cat "$dir/packed-err")"
signature=$(grep -oE '[0-9a-f]{16} \|$' <<<"$bytes")
[[ -n $signature && $(grep -c -- "$signature" <<<"$packed") == 2 ]] ||
  fail "packed levels' signature differs from bytes' ($signature): $packed"

# A kalah whose solve answers differently on two threads: the table shows it, the exit status is 1.
fake=$dir/fake-kalah
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
case "$1" in
  gen) exit 0 ;;
  solve) echo "$*" >>"${0%/*}/solve-args"
         [[ " $* " == *" --threads 2 "* ]] && m=2 || m=0
         echo "{\"seconds\": 1.5, \"nodes\": 100, \"margin\": $m, \"idle_thread_seconds\": 0.25}" ;;
esac
FAKE
chmod +x "$fake"
out=$("$script" --kalah "$fake" --threads "1 2" --dir "$dir" --only etude 2>/dev/null)
[[ $? == 1 ]] || fail "values that differ between thread counts do not give exit 1: $out"
grep -qE '^\| 2 \| 1\.50 \| 1\.00x \| 100 \| 1\.00x \| 0\.25 \| 2 \|$' <<<"$out" ||
  fail "the differing row: $out"
[[ $(grep -c -- ' --json --progress' "$dir/solve-args") == 2 ]] ||
  fail "each solve is not asked for its JSON answer and progress lines: $(cat "$dir/solve-args")"

# A kalah whose solve fails: the script stops with an error, not a row of nothing.
broken=$dir/broken-kalah
cat >"$broken" <<'BROKEN'
#!/bin/sh
[ "$1" = gen ] && exit 0
echo "no database" >&2
exit 1
BROKEN
chmod +x "$broken"
if out=$("$script" --kalah "$broken" --threads 1 --dir "$dir" --only kec 2>/dev/null); then
  fail "a failed solve does not fail the script"
fi
grep -q '^| 1 |' <<<"$out" && fail "a failed solve printed a row: $out"
# One whose answer lacks a field: an error naming it, no row.
cat >"$broken" <<'BROKEN'
#!/bin/sh
[ "$1" = gen ] && exit 0
echo '{"seconds": 1.5, "nodes": 100}'
BROKEN
if out=$("$script" --kalah "$broken" --threads 1 --dir "$dir" --only kec 2>"$dir/err"); then
  fail "an answer without its margin does not fail the script"
fi
grep -q 'no margin' "$dir/err" || fail "the error does not name the missing field: $(cat "$dir/err")"
grep -q '^| 1 |' <<<"$out" && fail "an answer without its margin printed a row: $out"

"$script" --kalah "$kalah" --bogus 1 >/dev/null 2>&1
[[ $? == 2 ]] || fail "an unknown option is not refused with exit 2"
"$script" --kalah "$kalah" --only nothing >/dev/null 2>&1
[[ $? == 2 ]] || fail "an unknown workload is not refused with exit 2"
"$script" --kalah "$kalah" --threads >/dev/null 2>&1
[[ $? == 2 ]] || fail "an option without its value is not refused with exit 2"
echo "scaling.sh: tables and refusals as expected"
