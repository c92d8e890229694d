#!/usr/bin/env bash
# The main job on an embedded default: install, build, prove the arithmetic against built-in known
# answers (cuzk selfcheck), seal a random 2 KiB sector natively (SDR labels, trees D/C/R, C1
# output), then start the proving daemon and prove the sector's PoRep C2 through it
# (POREP_SEAL_COMMIT, the C1 output as vanilla_proof), the proof checked by cuzk-bench against public
# inputs it derives from C1 itself, and again by `cuzk verify --porep`. Prints the timings of each
# step. The PoRep circuit's test-only keys (~1.1 GB, a few minutes on 2 cores) and its PCE are made
# on first use and cached in build/daemon-data, so a second run starts warm.
#   CUZK_MAIN_SECTOR_SIZE=8MiB (or 512MiB) seals and proves a larger sector; extra arguments go to
#   `cuzk-bench single` (e.g. --json).
set -euo pipefail
cd "$(dirname "$0")/.."
CUZK_SKIP_NPM=1 bash scripts/install-deps.sh
bash scripts/build.sh build -DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_BENCH=OFF
./build/apps/cuzk/cuzk selfcheck
size="${CUZK_MAIN_SECTOR_SIZE:-2KiB}"
work=build/main-job
data=build/daemon-data
mkdir -p "$work"
echo "== seal a random $size sector (C1 output: $work/c1-$size.json)"
./build/apps/cuzk/cuzk seal --sector-size "$size" --random --rng-seed "$(date +%s)" --wrapper \
  --out "$work/c1-$size.json" --json
echo "== prove its C2 through the daemon (TEST-ONLY keys made on first use: srs.allow_test_keys)"
printf '[srs]\nallow_test_keys = true\n' >"$work/cuzk.toml"
./build/apps/cuzk-bench/cuzk-bench --spawn-daemon ./build/apps/cuzk-daemon/cuzk-daemon --data-dir "$data" \
  --daemon-arg=--config="$work/cuzk.toml" --spawn-timeout 60 single --c1 "$work/c1-$size.json" --proof-out "$work/proof-$size.bin" "$@"
echo "== the proof again, checked by cuzk verify --porep with the daemon's verifying key"
./build/apps/cuzk/cuzk verify --porep --c1 "$work/c1-$size.json" --vk "$data/params/porep_$size.vk" \
  --proof "$work/proof-$size.bin"
