#!/usr/bin/env bash
# Installs what is missing, builds, and runs `kalah` with the given arguments. With none, the main
# job: the etude's endgame table (data/kalah.db, built once, reused after), the exact value of the
# 3-stone start, and a game of perfect play in which every move is valued exactly.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build >&2
kalah=build/tools/kalah
if (($# > 0)); then
  exec "$kalah" "$@"
fi

db=data/kalah.db
stones=20  # the table's size: every position with up to 20 stones in pits (225.8 M entries)
echo "== The endgame table: wetherell (the etude), 6 pits, up to $stones stones in pits, in $db"
"$kalah" gen --rules wetherell --pits 6 --max-stones "$stones" --db "$db"
echo
echo "== The etude's start with 3 stones a pit, solved exactly"
"$kalah" solve --rules wetherell --pits 6 --stones 3 --db "$db" --quiet
echo
echo "== Perfect play: every move chosen and valued by the solver"
"$kalah" play --self --rules wetherell --pits 6 --stones 3 --exact --db "$db"
