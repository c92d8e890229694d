#!/usr/bin/env bash
# The native witness of a full 32 GiB WindowPoSt partition (2349 synthetic sectors, 126.9 M aux)
# equals the circuit's synthesis value for value, and its inputs are the verifier's. Slow: 0.5-1 min to
# make the request file and ~40 s for the two witnesses on 2 quiet cores; ~8.5 GB of memory.
# Usage: post_witness_32gib_test.sh PATH/TO/cuzk
set -u
cuzk=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cuzk" synth-post --kind window --sector-size 32GiB --out "$tmp/w32g.json" || exit 1
"$cuzk" post witness --post "$tmp/w32g.json" --check --json | tee "$tmp/witness.json"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "FAIL: post witness --check exited $rc"; exit 1; }
for want in '"aux": 126902376' '"inputs": 25840' '"inputs_match_verifier": true' '"matches_synthesis": true'; do
  grep -q -- "$want" "$tmp/witness.json" || { echo "FAIL: no '$want'"; exit 1; }
done
echo "32 GiB WindowPoSt witness test passed"
