#!/usr/bin/env bash
# Installs the Debian packages kalah needs (only those missing) and builds it into build/.
# Usage: tools/setup.sh [BUILD_DIR [extra cmake args...]]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config liblmdb-dev lmdb-utils libzstd-dev
          libboost-program-options-dev libtbb-dev libgtest-dev libgmock-dev libbenchmark-dev graphviz
          libopenmpi-dev openmpi-bin libxxhash-dev nlohmann-json3-dev libboost-dev zlib1g-dev iproute2 python3 chromium
          clang clang-format libclang-rt-14-dev pybind11-dev python3-dev python3-pytest nginx
          python3-numpy python3-venv python3-pip python3-setuptools python3-wheel)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build=${1:-build}
shift || true
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
