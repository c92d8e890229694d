#!/usr/bin/env bash
# End-to-end checks of `cuzk seal --cache`, `cuzk snap encode|vanilla` and `cuzk synth-snap` at
# 2 KiB: the chain seal -> encode -> vanilla, the files written, the commitments (zero new data: the
# known comm_d of a zero 2 KiB sector and an unchanged replica), and input errors (exit code 2).
# `cuzk snap witness` on both request files: the native witness equals the circuit's synthesis.
# Usage: snap_cli_test.sh PATH/TO/cuzk
set -u
cuzk=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/cli_lib.sh"

expect_rc 0 "$cuzk" snap encode --help
expect_rc 0 "$cuzk" snap vanilla --help
expect_rc 0 "$cuzk" synth-snap --help
expect_rc 0 "$cuzk" seal --sector-size 2KiB --random --cache "$tmp/sealed" --json --out "$tmp/c1.json"
expect_out '"cache": '
comm_r=$(sed -n 's/.*"comm_r": "\([0-9a-f]*\)".*/\1/p' "$tmp/out")
for f in sealed-sector.json sector-key.dat; do
  [ -f "$tmp/sealed/$f" ] || { echo "FAIL: seal --cache wrote no $f"; fail=1; }
done
[ "$(stat -c %s "$tmp/sealed/sector-key.dat")" = 2048 ] || { echo "FAIL: sector-key.dat is not 2048 bytes"; fail=1; }

# Random new data: comm_r_old is the sealed comm_r; the request file has one partition proof.
expect_rc 0 "$cuzk" snap encode --cache "$tmp/sealed" --random --rng-seed 4 --json --out "$tmp/upd"
expect_out "\"comm_r_old\": \"$comm_r\""
expect_out '"registered_update_proof": "StackedDrg2KiBV1"'
expect_rc 0 "$cuzk" snap vanilla --cache "$tmp/sealed" --update "$tmp/upd" --json --out "$tmp/req.json"
expect_out '"partitions": 1'
expect_out '"challenges_per_partition": 10'
grep -q '"registered_proof": "StackedDrg2KiBV1"' "$tmp/req.json" || { echo "FAIL: request file lacks the proof"; fail=1; }
grep -q "\"comm_r_old\": \"$comm_r\"" "$tmp/req.json" || { echo "FAIL: request file lacks comm_r_old"; fail=1; }

# Zero new data: tree D is a zero 2 KiB sector's (the comm_d `cuzk seal` tests against) and the
# replica is the sector key, so comm_r_new = comm_r_old.
head -c 2048 /dev/zero >"$tmp/zero.bin"
expect_rc 0 "$cuzk" snap encode --cache "$tmp/sealed" --data "$tmp/zero.bin" --json --out "$tmp/zero"
expect_out '"comm_d_new": "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833"'
expect_out "\"comm_r_new\": \"$comm_r\""
cmp -s "$tmp/zero/replica.dat" "$tmp/sealed/sector-key.dat" || { echo "FAIL: zero data changed the replica"; fail=1; }
expect_rc 0 "$cuzk" snap vanilla --cache "$tmp/sealed" --update "$tmp/zero" --out "$tmp/zero.json"

# Input errors: exit code 2 with the reason.
expect_rc 2 "$cuzk" snap encode --cache "$tmp/nowhere" --random --out "$tmp/x"
expect_out 'sealed-sector.json'
expect_rc 2 "$cuzk" snap encode --cache "$tmp/sealed" --out "$tmp/x"
expect_out '--data FILE and --random'
head -c 100 /dev/zero >"$tmp/short.bin"
expect_rc 2 "$cuzk" snap encode --cache "$tmp/sealed" --data "$tmp/short.bin" --out "$tmp/x"
expect_out '100 bytes'
head -c 2048 /dev/zero | tr '\0' '\377' >"$tmp/ff.bin"
expect_rc 2 "$cuzk" snap encode --cache "$tmp/sealed" --data "$tmp/ff.bin" --out "$tmp/x"
expect_out 'node 0'
cp -r "$tmp/upd" "$tmp/bad"
printf '\001' | dd of="$tmp/bad/replica.dat" bs=1 seek=100 conv=notrunc status=none
expect_rc 2 "$cuzk" snap vanilla --cache "$tmp/sealed" --update "$tmp/bad" --out "$tmp/x"
expect_out 'replica'
"$cuzk" seal --sector-size 2KiB --random --rng-seed 9 --cache "$tmp/other" --out "$tmp/c1b.json" >/dev/null
expect_rc 2 "$cuzk" snap vanilla --cache "$tmp/other" --update "$tmp/upd" --out "$tmp/x"
expect_out 'is not an update of the sector'

# synth-snap: deterministic, validated before it is written.
expect_rc 0 "$cuzk" synth-snap --sector-size 2KiB --json --out "$tmp/s1.json"
expect_out '"partitions": 1'
"$cuzk" synth-snap --sector-size 2KiB --out "$tmp/s2.json" >/dev/null
cmp -s "$tmp/s1.json" "$tmp/s2.json" || { echo "FAIL: synth-snap is not deterministic"; fail=1; }
expect_rc 2 "$cuzk" synth-snap --sector-size 3KiB --out "$tmp/x"
expect_out 'SnapDeals sector size'
[ ! -e "$tmp/x" ] || { echo "FAIL: a failed command wrote its output"; fail=1; }

# snap witness: the native witness of the updated and the synthetic request files is the circuit's
# synthesis value for value, with the verifier's inputs; a partition that does not exist is a usage
# error; a tampered vanilla proof is refused naming its partition.
expect_rc 0 "$cuzk" snap witness --snap "$tmp/req.json" --check --json
expect_out '"aux": 1703569'
expect_out '"inputs_match_verifier": true'
expect_out '"matches_synthesis": true'
expect_rc 0 "$cuzk" snap witness --snap "$tmp/s1.json" --check
expect_out 'OK: identical to the circuit'
expect_rc 2 "$cuzk" snap witness --snap "$tmp/s1.json" --partition 1
expect_out 'has partitions 0..0'
python3 - "$tmp/req.json" "$tmp/req-bad.json" <<'PY'
import base64, json, sys
d = json.load(open(sys.argv[1]))
b = bytearray(base64.b64decode(d["vanilla_proofs"][0]))
b[308] ^= 1  # the first challenge's proof_r_old root (snap_e2e_test.sh)
d["vanilla_proofs"][0] = base64.b64encode(bytes(b)).decode()
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 1 "$cuzk" snap witness --snap "$tmp/req-bad.json"
expect_out '(partition 0)'

[ "$fail" = 0 ] && echo "snap CLI: all checks passed"
exit "$fail"
