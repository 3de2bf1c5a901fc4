#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite: a
# release build, the format gate (clang-format --dry-run -Werror on every tracked C++ file), the
# release tests, then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, except
# those labelled `slow` (solves that take a minute in release and many under the sanitizers;
# tests/CMakeLists.txt), then the tests whose threads share memory under ThreadSanitizer, then the
# libFuzzer targets (tests/fuzz/: position parser, HTTP query, block decoder, whole database files)
# 20 s each. The sanitizer builds are -O1 -g1: line tables are all the sanitizers' reports need,
# and it compiles faster than RelWithDebInfo's -O2 -g (figures: docs/CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

tools/setup.sh build -DKALAH_WERROR=ON
# The format gate: every tracked C++ file as the committed .clang-format writes it.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z '*.cpp' '*.hpp' | xargs -0 clang-format --dry-run -Werror
fi
(cd build && ctest --output-on-failure --parallel "$jobs")

tools/setup.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKALAH_SANITIZE=ON -DKALAH_WERROR=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure --parallel "$jobs" --label-exclude slow)

# ThreadSanitizer over the tests whose threads share memory (kalah_thread_tests in
# tests/CMakeLists.txt), as two processes at once: the settled-node test, and the others but the
# value vectors (solved in the passes above; here they would add a minute and no thread sharing).
cmake -S . -B build-tsan -G Ninja -DKALAH_TSAN=ON -DKALAH_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" >/dev/null
cmake --build build-tsan --parallel "$jobs" --target kalah_thread_tests
settled=Solve.ANodeAnotherThreadSettledIsAnsweredFromItsEntry
filters=("$settled" "-$settled:*ValueVectors*")
pids=()
for i in "${!filters[@]}"; do
  build-tsan/tests/kalah_thread_tests --gtest_filter="${filters[$i]}" >"build-tsan/part$i.log" 2>&1 &
  pids+=($!)
done
tsan_failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    tail -n 1 "build-tsan/part$i.log"
  else
    tsan_failed=1
    echo "== ThreadSanitizer, tests ${filters[$i]}: FAILED (build-tsan/part$i.log)"
    tail -n 80 "build-tsan/part$i.log"
  fi
done
((tsan_failed == 0))

tests/fuzz/run.sh 20
