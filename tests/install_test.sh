#!/usr/bin/env bash
# `cmake --install` into a fresh prefix: the binary runs from there, the manual page and the
# documents are in place, and the manual page names exactly the commands `kalah --help` lists.
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

listed=$("$kalah" --help | awk '/^commands:/ {on = 1; next} on && NF {print $1}' | sort)
[[ -n $listed ]] || fail "kalah --help lists no commands"
documented=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man" | awk '$1 == ".B" && prev == ".TP" {print $2} {prev = $1}' | sort)
[[ $listed == "$documented" ]] ||
  fail "commands in kalah --help ($(echo $listed)) differ from the manual page's ($(echo $documented))"
echo "install test: bin/kalah, share/man/man1/kalah.1 and share/doc/kalah in place; $(echo "$listed" | wc -l) commands documented"
