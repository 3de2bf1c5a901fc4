#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ in build-fuzz/ with clang and runs each for
# SECONDS_PER_TARGET (default 20) on a copy of its seed corpus, with libFuzzer's random seed
# FUZZ_SEED (default 1, so a run of the same length on the same machine repeats; 0 draws a new one
# each run, for longer searches by hand). Exits non-zero on any crash, leak, timeout or broken
# contract; the input that did it is kept in build-fuzz/artifacts/TARGET/.
# Usage: [FUZZ_SEED=N] tests/fuzz/run.sh [SECONDS_PER_TARGET]
# Needs (Debian): clang, libclang-rt-14-dev, cmake, pkg-config, libzstd-dev,
# libxxhash-dev, liblmdb-dev; ninja-build if present.
set -euo pipefail

seconds=${1:-20}
seed=${FUZZ_SEED:-1}
if ! [[ $seconds =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]]; then
  echo "usage: [FUZZ_SEED=N] tests/fuzz/run.sh [SECONDS_PER_TARGET]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$root/build-fuzz
cxx=${FUZZ_CXX:-clang++}

configure=(-S "$root/tests/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx")
# A generator can only be chosen when the build directory is first configured.
if [[ ! -f $build/CMakeCache.txt ]] && command -v ninja >/dev/null; then configure+=(-G Ninja); fi
cmake "${configure[@]}" >/dev/null
cmake --build "$build" -j2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

declare -A max_len=([fuzz_position]=256 [fuzz_http_query]=1024 [fuzz_block]=4096
  [fuzz_db_file]=262144)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=()
summary=()
for target in fuzz_position fuzz_http_query fuzz_block fuzz_db_file; do
  corpus=$work/$target
  rm -rf "$build/artifacts/$target"
  mkdir -p "$corpus" "$build/artifacts/$target"
  if [[ -d $root/tests/fuzz/corpus/$target ]]; then cp "$root/tests/fuzz/corpus/$target"/* "$corpus"/; fi
  if [[ -x $build/${target}_seeds ]]; then "$build/${target}_seeds" "$corpus"; fi
  seeds=$(find "$corpus" -type f | wc -l)
  log=$build/artifacts/$target.log
  echo "== $target: ${seconds}s from $seeds seeds, FUZZ_SEED=$seed (log: ${log#"$root"/})"
  rc=0
  "$build/$target" -max_total_time="$seconds" -max_len="${max_len[$target]}" -timeout=10 -seed="$seed" \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/" "$corpus" >"$log" 2>&1 ||
    rc=$?
  # libFuzzer's last status line ("#N DONE cov: C ft: F corp: K/..." or the last one before a
  # crash) and its final stats.
  status=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$status")
  corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$status")
  execs=$(sed -nE 's/^stat::number_of_executed_units:[[:space:]]+([0-9]+)/\1/p' "$log")
  rate=$(sed -nE 's/^stat::average_exec_per_sec:[[:space:]]+([0-9]+)/\1/p' "$log")
  line="$target: ${execs:-?} execs (${rate:-?}/s), cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?}"
  if [[ $rc -eq 0 ]]; then
    line+=", no crash"
  else
    line+=", FAILED (exit $rc; inputs in ${build#"$root"/}/artifacts/$target/)"
    failed+=("$target")
    tail -n 40 "$log"
  fi
  echo "$line"
  summary+=("$line")
done

echo "== fuzzing summary, ${seconds}s a target"
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzzing FAILED: ${failed[*]}" >&2
  exit 1
fi
