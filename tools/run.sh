#!/usr/bin/env bash
# Installs what is missing, builds, and runs `kalah` with the given arguments; with none, the main
# job: computer plays itself a game of the default etude (wetherell, 6 pits, 3 stones).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build >&2
if (($# == 0)); then
  set -- play --self --stones 3
fi
exec build/tools/kalah "$@"
