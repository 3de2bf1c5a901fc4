#!/usr/bin/env bash
# `cmake --install` into a fresh prefix: the binary runs from there, the manual page and the
# documents are in place, the manual page names exactly the commands `kalah --help` lists, and
# examples/probe.cpp builds against the installed library (find_package(kalah)) and answers as
# `kalah query` does, as does the installed Python module where the build has one.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
kalah=$prefix/bin/kalah
man=$prefix/share/man/man1/kalah.1
[[ -x $kalah ]] || fail "no executable $kalah"
[[ -f $man ]] || fail "no manual page $man"
for doc in README.md docs/RULES.md docs/COMMANDS.md docs/SOLVER.md docs/PERFORMANCE.md db/FORMAT.md; do
  [[ -f $prefix/share/doc/kalah/$doc ]] || fail "no $doc under share/doc/kalah"
done
# Every relative link between the installed documents resolves.
while IFS= read -r doc; do
  while IFS= read -r target; do
    [[ $target == *://* || -z $target ]] && continue
    [[ -e $(dirname "$doc")/$target ]] || fail "${doc#$prefix/}: link to $target does not resolve"
  done < <(grep -o '](\([^)#]*\)' "$doc" | sed 's/^](//')
done < <(find "$prefix/share/doc/kalah" -name '*.md')

got=$("$kalah" move "3,3,3,3,3,3,0/3,3,3,3,3,3,0 S" 5)
[[ $got == "3,3,3,3,0,4,1/4,3,3,3,3,3,0 N" ]] || fail "installed kalah move printed '$got'"

listed=$("$kalah" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}' | sort)
[[ -n $listed ]] || fail "kalah --help lists no commands"
documented=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man" | awk '$1 == ".B" && prev == ".TP" {print $2} {prev = $1}' | sort)
[[ $listed == "$documented" ]] ||
  fail "commands in kalah --help ($(echo $listed)) differ from the manual page's ($(echo $documented))"
# The probe library: header, shared library and package config, used by a program built outside.
for f in include/kalah/kalah.hpp lib/libkalah.so lib/cmake/kalah/kalahConfig.cmake; do
  [[ -e $prefix/$f ]] || fail "no $f"
done
src=$(cd "$(dirname "$0")/.." && pwd)
# A sanitizer build's library needs its runtime in the program too.
example_flags=()
if grep -q '^KALAH_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt"; then
  example_flags=(-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined
                 -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
fi
cmake -S "$src/examples" -B "$prefix/example-build" -DCMAKE_PREFIX_PATH="$prefix" \
  "${example_flags[@]}" >/dev/null ||
  fail "examples/ does not configure against the installed package"
cmake --build "$prefix/example-build" >/dev/null || fail "examples/probe.cpp does not build"
db=$prefix/probe.db
"$kalah" gen --rules kalah --pits 4 --max-stones 8 --db "$db" --quiet >/dev/null
position="1,0,2,1,4/0,1,0,2,3 S"  # 7 stones in pits: inside the table
probed=$("$prefix/example-build/probe" "$db" kalah "$position") || fail "probe failed: $probed"
want=$("$kalah" query --rules kalah --db "$db" --json "$position" | python3 -c '
import json, sys
a = json.load(sys.stdin)
print("value:", a["margin"])
for m in a["moves"]:
    print("pit %d: %d%s" % (m["pit"], m["margin"], " best" if m["best"] else ""))')
[[ $probed == "$want" ]] || fail "probe printed '$probed', kalah query says '$want'"
"$prefix/example-build/probe" "$db" kalah "not a position" 2>/dev/null && fail "probe accepted a bad position"
# The Python module, where the build has one: imported from where it was installed, it answers
# as kalah query does.
python_dir=$(sed -n 's/^KALAH_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
python_note=""
if [[ -n $python_dir ]]; then
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  got=$(PYTHONPATH=$prefix/$python_dir "${python:-python3}" -c '
import sys, kalah
assert kalah.__file__.startswith(sys.argv[1]), kalah.__file__
print("value:", kalah.Database(sys.argv[2]).value("kalah", sys.argv[3]))' \
    "$prefix/$python_dir" "$db" "$position" 2>&1) ||
    fail "the Python module does not import from $python_dir: $got"
  [[ $got == "$(head -1 <<<"$want")" ]] ||
    fail "the Python module printed '$got', kalah query says '$want'"
  python_note="; the Python module imports from $python_dir"
fi

echo "install test: bin/kalah, share/man/man1/kalah.1 and share/doc/kalah in place; $(echo "$listed" | wc -l) commands documented; examples/probe built against lib/libkalah.so agrees with kalah query$python_note"
