#!/usr/bin/env bash
# The main job on an embedded default: install, build, prove the arithmetic against built-in known
# answers (cuzk selfcheck), pre-compile a circom circuit and a 1 %-scale PoRep-shaped circuit into
# .pce files (extract, verify, bench), prove and verify a built-in 2^16-constraint circuit with
# Groth16 (test-only setup), then measure the arithmetic (cuzk speed).
set -euo pipefail
cd "$(dirname "$0")/.."
CUZK_SKIP_NPM=1 bash scripts/install-deps.sh
bash scripts/build.sh build -DCUZK_BUILD_TESTS=OFF
./build/apps/cuzk/cuzk selfcheck
./build/apps/cuzk/cuzk pce extract --r1cs tests/circom/mix.r1cs -o build/mix.pce
./build/apps/cuzk/cuzk pce verify build/mix.pce
./build/apps/cuzk/cuzk pce extract --synthetic-porep 0.01 -o build/porep-1pct.pce
./build/apps/cuzk/cuzk pce bench build/porep-1pct.pce
./build/apps/cuzk/cuzk setup --circuit filecoin-like:2^16 --params build/main.params --vk build/main.vk
./build/apps/cuzk/cuzk prove --params build/main.params --circuit filecoin-like:2^16 --proof build/main.proof \
  --public build/main.public.json -v
./build/apps/cuzk/cuzk verify --vk build/main.vk --proof build/main.proof --public build/main.public.json
./build/apps/cuzk/cuzk speed "$@"
