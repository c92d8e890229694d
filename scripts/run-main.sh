#!/usr/bin/env bash
# The main job on an embedded default: install, build, prove the arithmetic against built-in known
# answers (cuzk selfcheck), pre-compile a circom circuit and a 1 %-scale PoRep-shaped circuit into
# .pce files (extract, verify, bench), then measure the arithmetic (cuzk speed).
set -euo pipefail
cd "$(dirname "$0")/.."
CUZK_SKIP_NPM=1 bash scripts/install-deps.sh
bash scripts/build.sh build -DCUZK_BUILD_TESTS=OFF
./build/apps/cuzk/cuzk selfcheck
./build/apps/cuzk/cuzk pce extract --r1cs tests/circom/mix.r1cs -o build/mix.pce
./build/apps/cuzk/cuzk pce verify build/mix.pce
./build/apps/cuzk/cuzk pce extract --synthetic-porep 0.01 -o build/porep-1pct.pce
./build/apps/cuzk/cuzk pce bench build/porep-1pct.pce
./build/apps/cuzk/cuzk speed "$@"
