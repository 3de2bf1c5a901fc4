#!/usr/bin/env bash
# A full disk: on a small tmpfs filled to the last byte, readers still answer (without a lock
# file), and every writer (gen into a new or an existing database, solve --checkpoint) refuses in
# one line with exit 1 before doing anything, leaving nothing behind; a solve's certificate, written
# after the answer, is a one-line warning and exit 3. Needs to mount a tmpfs
# (root); where it cannot, exits 77 (reported by CTest as skipped).
# Usage: full_disk_test.sh KALAH_BINARY WORK_DIR
set -uo pipefail
kalah=$1
work=$2
disk=$work/disk
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

rm -rf "$work"
mkdir -p "$disk"
if ! mount -t tmpfs -o size=4m tmpfs "$disk" 2>/dev/null; then
  echo "full_disk_test: cannot mount a tmpfs here (needs root): skipped"
  exit 77
fi
trap 'umount "$disk"' EXIT

position="1,2,1,0,0/2,1,0,1,0 S"
"$kalah" gen --pits 4 --max-stones 8 --quiet --db "$disk/db" || exit 1
want=$("$kalah" query "$position" --db "$disk/db") || exit 1
rm -f "$disk/db/lock.mdb"
head -c 8M /dev/zero >"$disk/fill" 2>/dev/null
[[ $(df --output=avail "$disk" | tail -n 1) -eq 0 ]] || fail "the disk is not full"

# $1: what; then the command. Expects exit 1 and one line on stderr containing "disk full".
refuses() {
  local what=$1
  shift
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq 1 ]] || fail "$what: exit $rc, not 1: $err"
  [[ $(wc -l <<<"$err") -eq 1 && $err == *"disk full"* || $err == *"No space"* ]] ||
    fail "$what: not one line saying the disk is full: $err"
}

got=$("$kalah" query "$position" --db "$disk/db" 2>&1)
[[ $? -eq 0 && $got == "$want" ]] || fail "query on a full disk: $got"
[[ ! -e $disk/db/lock.mdb ]] || fail "query on a full disk created a lock file"
refuses "gen into a new database" "$kalah" gen --pits 4 --max-stones 8 --quiet --db "$disk/new"
[[ ! -e $disk/new ]] || fail "gen on a full disk created $disk/new"
before=$(md5sum <"$disk/db/data.mdb")
refuses "gen extending a database" "$kalah" gen --pits 4 --max-stones 9 --quiet --db "$disk/db"
[[ $(md5sum <"$disk/db/data.mdb") == "$before" ]] || fail "gen on a full disk changed data.mdb"
refuses "solve --checkpoint" "$kalah" solve --pits 4 --stones 2 --tt-mb 16 \
  --checkpoint "$disk/solve.ckpt" --db "$disk/db"
[[ ! -e $disk/solve.ckpt ]] || fail "solve on a full disk left a checkpoint"
# A certificate is written after the answer: the answer stands, a one-line warning, exit 3.
out=$("$kalah" solve --pits 4 --stones 2 --tt-mb 16 --certificate "$disk/solve.sh" \
  --db "$disk/db" 2>"$work/cert.err")
rc=$?
[[ $rc -eq 3 && $out == *"margin:"* ]] || fail "solve --certificate on a full disk: exit $rc: $out"
[[ $(wc -l <"$work/cert.err") -eq 1 ]] && grep -q "cannot write the certificate $disk/solve.sh: No space" \
  "$work/cert.err" || fail "solve --certificate on a full disk: $(cat "$work/cert.err")"
[[ ! -e $disk/solve.sh && ! -e $disk/solve.sh.tmp ]] || fail "solve left a partial certificate"

if [[ $failures -gt 0 ]]; then
  echo "full_disk_test: $failures failures" >&2
  exit 1
fi
echo "full_disk_test: readers answer, writers refuse in one line, nothing changed"
