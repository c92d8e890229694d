#!/usr/bin/env bash
# The main job on an embedded default: install, build, prove the arithmetic against built-in known
# answers (cuzk selfcheck), then measure it (cuzk speed).
set -euo pipefail
cd "$(dirname "$0")/.."
CUZK_SKIP_NPM=1 bash scripts/install-deps.sh
bash scripts/build.sh build -DCUZK_BUILD_TESTS=OFF
./build/apps/cuzk/cuzk selfcheck
./build/apps/cuzk/cuzk speed "$@"
