#!/usr/bin/env bash
# Configures and builds one build directory: scripts/build.sh DIR [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
jobs=${CUZK_JOBS:-$(nproc)}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-Release} "$@" >/dev/null
cmake --build "$dir" -j "$jobs"
