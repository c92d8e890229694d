#!/usr/bin/env bash
# The main job on an embedded default: install, build, prove the arithmetic against built-in known
# answers (cuzk selfcheck), then start the proving daemon and prove a built-in circuit of 2^18
# constraints three times, each request split into 4 partitions, two requests in flight, every
# proof verified; cuzk-bench prints the summary (throughput, latency, per-stage times, prover
# utilization, the daemon's peak RSS). Keys (test-only) and the circuit's PCE are generated on
# first use and cached in build/daemon-data, so a second run starts warm.
set -euo pipefail
cd "$(dirname "$0")/.."
CUZK_SKIP_NPM=1 bash scripts/install-deps.sh
bash scripts/build.sh build -DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_BENCH=OFF
./build/apps/cuzk/cuzk selfcheck
./build/apps/cuzk-bench/cuzk-bench --spawn-daemon ./build/apps/cuzk-daemon/cuzk-daemon --data-dir build/daemon-data \
  batch --circuit "${CUZK_MAIN_CIRCUIT:-filecoin-like:2^18}" --partitions 4 -c 3 -j 2 "$@"
