#!/usr/bin/env bash
# End-to-end checks of `cuzk seal` and `cuzk synth-c1` at 2 KiB: exit codes, the --json summary,
# the written C1 (raw and wrapped), and input errors (exit code 2).
# Usage: seal_cli_test.sh PATH/TO/cuzk
set -u
cuzk=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/cli_lib.sh"
has_keys() {  # has_keys WHAT JSON KEYS...
  local what=$1 out=$2
  shift 2
  for key in "$@"; do
    echo "$out" | grep -q "$key" || { echo "FAIL: $what lacks $key: $out"; fail=1; }
  done
}

expect_rc 0 "$cuzk" seal --help
expect_rc 0 "$cuzk" synth-c1 --help
out=$("$cuzk" seal --sector-size 2KiB --random --json --out "$tmp/seal.json")
has_keys "seal --json" "$out" '"comm_d": "' '"comm_r": "' '"replica_id": "' '"timings_s"' \
  '"registered_proof": "StackedDrg2KiBV1_1"' '"partitions": 1'
head -c 40 "$tmp/seal.json" | grep -q '"registered_proof":"StackedDrg2KiBV1_1"' ||
  { echo "FAIL: seal output is not raw C1 JSON"; fail=1; }
# Same inputs, same C1.
"$cuzk" seal --sector-size 2KiB --random --out "$tmp/seal2.json" >/dev/null
cmp -s "$tmp/seal.json" "$tmp/seal2.json" || { echo "FAIL: seal is not deterministic"; fail=1; }
expect_rc 0 "$cuzk" seal --sector-size 2KiB --random --rng-seed 3 --proof StackedDrg2KiBV1_2_Feat_NonInteractivePoRep \
  --actor-id 7 --sector-id 9 --ticket "$(printf '0a%.0s' {1..32})" --wrapper -v --out "$tmp/ni.json"
grep -q '"SectorNum":9' "$tmp/ni.json" || { echo "FAIL: --wrapper output lacks SectorNum 9"; fail=1; }
# A zero 2 KiB sector from a file: the known comm_d.
head -c 2048 /dev/zero >"$tmp/zero.bin"
out=$("$cuzk" seal --sector-size 2KiB --data "$tmp/zero.bin" --json --out "$tmp/zero.json")
has_keys "seal zero" "$out" '"comm_d": "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"'

out=$("$cuzk" synth-c1 --sector-size 2KiB --json --out "$tmp/synth.json")
has_keys "synth-c1 --json" "$out" '"comm_d": "' '"comm_r": "' '"replica_id": "' '"timings_s"'
out=$("$cuzk" synth-c1 --sector-size 2KiB --proof StackedDrg2KiBV1 --rng-seed 5 --sector-id 12 --actor-id 5 --wrapper \
  --json --out "$tmp/synth-w.json")
has_keys "synth-c1 --sector-id" "$out" '"sector_id": 12' '"prover_id": "0500000000'
grep -q '"SectorNum":12' "$tmp/synth-w.json" || { echo "FAIL: synth-c1 --wrapper lacks SectorNum 12"; fail=1; }
expect_rc 2 "$cuzk" synth-c1 --sector-size 2KiB --actor-id 5 --prover-id "$(printf '01%.0s' {1..32})" --out "$tmp/x.json"

# Input errors: exit code 2.
expect_rc 2 "$cuzk" seal --sector-size 2KiB --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --random --data "$tmp/zero.bin" --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 3KiB --random --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 32GiB --random --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --random --proof StackedDrg8MiBV1_1 --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --random --ticket abc --out "$tmp/x.json"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --random --seed "$(printf '00%.0s' {1..32})" --out "$tmp/x.json"
head -c 1024 /dev/zero >"$tmp/short.bin"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --data "$tmp/short.bin" --out "$tmp/x.json"
{ head -c 31 /dev/zero; printf '\xff'; head -c 2016 /dev/zero; } >"$tmp/big.bin"
expect_rc 2 "$cuzk" seal --sector-size 2KiB --data "$tmp/big.bin" --out "$tmp/x.json"
grep -q "node 0 " "$tmp/out" || { echo "FAIL: bad node not named: $(cat "$tmp/out")"; fail=1; }
expect_rc 2 "$cuzk" synth-c1 --sector-size 32GiB --proof StackedDrg32GiBV1_2_Feat_NonInteractivePoRep --out "$tmp/x.json"
[ -e "$tmp/x.json" ] && { echo "FAIL: a failed command left its output"; fail=1; }

[ "$fail" -eq 0 ] && echo "seal_cli_test: all passed"
exit "$fail"
