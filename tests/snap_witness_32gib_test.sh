#!/usr/bin/env bash
# The native witness of a full 32 GiB SnapDeals partition (a synthetic vanilla set; 80,978,488 aux)
# equals the circuit's synthesis value for value, and its inputs are the verifier's. Slow on the
# 2-core dev machine: ~10 s to make the request file, ~4 s to load it, ~2 s for the native witness
# and ~6 s for synthesis; 6.7 GB peak RSS.
# Usage: snap_witness_32gib_test.sh PATH/TO/cuzk
set -u
cuzk=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cuzk" synth-snap --sector-size 32GiB --out "$tmp/s32g.json" || exit 1
# The last partition: every partition bit set, so the partition path climbs on the right.
"$cuzk" snap witness --snap "$tmp/s32g.json" --partition 15 --check --json | tee "$tmp/witness.json"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "FAIL: snap witness --check exited $rc"; exit 1; }
for want in '"partition": 15' '"aux": 80978488' '"inputs": 5' '"inputs_match_verifier": true' \
  '"matches_synthesis": true'; do
  grep -q -- "$want" "$tmp/witness.json" || { echo "FAIL: no '$want'"; exit 1; }
done
echo "32 GiB SnapDeals witness test passed"
