#!/usr/bin/env bash
# SnapDeals end to end at 2 KiB through the daemon, with no outside data:
#   - `cuzk seal --cache` -> `cuzk snap encode` -> `cuzk snap vanilla`: a sector sealed and updated
#     here, and its SnapDeals request file (one partition);
#   - one daemon with srs.allow_test_keys (it extracts snap:2KiB's PCE and makes TEST-ONLY keys)
#     proves SNAP_DEALS_UPDATE; it verifies the proof before returning it, and cuzk-bench checks it
#     again against inputs it derives from the commitments;
#   - a vanilla proof with one changed byte, and the valid proofs under another sector's
#     comm_r_old: refused at submit (INVALID_ARGUMENT naming the partition and the field), no proof;
#   - `cuzk-bench batch --snap`: the sealed and the synthetic files sent in turn, every proof
#     verified; files of two sizes and a tampered file refused before sending;
#   - `cuzk verify --snap` with the daemon's keys: the daemon's proof valid, invalid against another
#     request, a file of two proofs refused; `cuzk prove --snap` proves and verifies on its own, and
#     refuses the tampered file, writing nothing; `cuzk pce extract --circuit snap:2KiB`.
# Usage: snap_e2e_test.sh PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench
set -u
source "$(dirname "$0")/e2e_lib.sh" "$@"
t0=$(date +%s)
run 0 "$tmp/seal.log" "$cuzk" seal --sector-size 2KiB --random --cache "$tmp/sealed" --out "$tmp/c1.json"
run 0 "$tmp/encode.log" "$cuzk" snap encode --cache "$tmp/sealed" --random --rng-seed 4 --out "$tmp/upd"
run 0 "$tmp/vanilla.log" "$cuzk" snap vanilla --cache "$tmp/sealed" --update "$tmp/upd" --out "$tmp/snap.json"
run 0 "$tmp/synth.log" "$cuzk" synth-snap --sector-size 2KiB --seed 5 --out "$tmp/synth.json"
run 0 "$tmp/synth8m.log" "$cuzk" synth-snap --sector-size 8MiB --out "$tmp/synth8m.json"
# One byte of the first challenge's proof_r_old root (bincode: comm_c 32, apex_leafs 8 + 8 x 32,
# challenge_proofs 8, variant 4 -> the root at 308); and the valid proofs under the synthetic
# set's comm_r_old.
python3 - "$tmp" <<'PY'
import base64, json, sys
t = sys.argv[1]
d = json.load(open(t + "/snap.json"))
b = bytearray(base64.b64decode(d["vanilla_proofs"][0]))
b[308] ^= 1
d["vanilla_proofs"][0] = base64.b64encode(bytes(b)).decode()
json.dump(d, open(t + "/snap-bad.json", "w"))
d = json.load(open(t + "/snap.json"))
d["comm_r_old"] = json.load(open(t + "/synth.json"))["comm_r_old"]
json.dump(d, open(t + "/snap-other.json", "w"))
PY
t1=$(date +%s)
echo "sector sealed and updated, vanilla proofs: $((t1 - t0)) s"

printf '[srs]\nallow_test_keys = true\n' >"$tmp/cuzk.toml"
start_daemon
run 0 "$tmp/prove.log" "$bench" -a "$sock" --json single --snap "$tmp/snap.json" --proof-out "$tmp/snap.proof"
expect_in "$tmp/prove.log" '"verified": *true' "SnapDeals proof verified by cuzk-bench"
expect_in "$tmp/prove.log" '"circuit": *"snap:2KiB"' "SnapDeals circuit"
size=$(stat -c %s "$tmp/snap.proof" 2>/dev/null || echo 0)
[ "$size" -eq 192 ] || { echo "FAIL: the proof has $size bytes, expected 192 (one partition)"; fail=1; }
echo "SnapDeals through the daemon (PCE, test-only keys, proof): $(($(date +%s) - t1)) s"

run 1 "$tmp/bad.log" "$bench" -a "$sock" --json single --snap "$tmp/snap-bad.json" --no-verify \
  --proof-out "$tmp/bad.proof"
expect_in "$tmp/bad.log" "INVALID_ARGUMENT" "tampered proof refused at submit"
expect_in "$tmp/bad.log" "vanilla_proofs\[0\] (partition 0): challenge_proofs\[0\].proof_r_old" \
  "tampered proof: the partition and the field named"
[ -e "$tmp/bad.proof" ] && { echo "FAIL: a proof was written for a tampered vanilla proof"; fail=1; }
run 2 "$tmp/bad-local.log" "$bench" -a "$sock" single --snap "$tmp/snap-bad.json"
expect_in "$tmp/bad-local.log" "(partition 0)" "cuzk-bench's own check names the partition"
run 1 "$tmp/other.log" "$bench" -a "$sock" single --snap "$tmp/snap-other.json" --no-verify
expect_in "$tmp/other.log" "INVALID_ARGUMENT" "another sector's comm_r_old refused at submit"
expect_in "$tmp/other.log" "(partition 0)" "another sector's comm_r_old: the partition named"
# batch --snap: the two files in turn, each proof checked against its own file's inputs; files of
# two sector sizes, and a tampered one, refused before anything is sent.
run 0 "$tmp/batch.log" "$bench" -a "$sock" --json batch --snap "$tmp/snap.json" "$tmp/synth.json" -c 2 -j 2
expect_in "$tmp/batch.log" '"circuit": *"snap:2KiB"' "batch --snap: the circuit of the files"
expect_in "$tmp/batch.log" '"verified": *2' "batch --snap: 2 proofs verified"
run 2 "$tmp/batch-mixed.log" "$bench" -a "$sock" batch --snap "$tmp/snap.json" "$tmp/synth8m.json" -c 1
expect_in "$tmp/batch-mixed.log" "a batch proves one circuit" "batch --snap: two circuits refused"
run 2 "$tmp/batch-bad.log" "$bench" -a "$sock" batch --snap "$tmp/snap-bad.json" -c 1
expect_in "$tmp/batch-bad.log" "(partition 0)" "batch --snap: a tampered file refused before sending"
stop_daemon

# Without a daemon, with the daemon's keys.
keys="$tmp/data/params/snap_2KiB"
run 0 "$tmp/cli-verify.log" "$cuzk" verify --snap "$tmp/snap.json" --vk "$keys.vk" --proof "$tmp/snap.proof"
run 1 "$tmp/cli-verify-other.log" "$cuzk" verify --snap "$tmp/synth.json" --vk "$keys.vk" --proof "$tmp/snap.proof"
cat "$tmp/snap.proof" "$tmp/snap.proof" >"$tmp/two.proof"
run 2 "$tmp/cli-verify-count.log" "$cuzk" verify --snap "$tmp/snap.json" --vk "$keys.vk" --proof "$tmp/two.proof"
expect_in "$tmp/cli-verify-count.log" "2 proofs; StackedDrg2KiBV1 has 1 partitions" "verify --snap: the proof count"
# A proof made without a daemon (the daemon's PCE and keys), verified.
run 0 "$tmp/cli-prove.log" "$cuzk" prove --snap "$tmp/snap.json" --params "$keys.params" \
  --pce "$tmp/data/pce/snap_2KiB.pce" --proof "$tmp/cli.proof" --json
expect_in "$tmp/cli-prove.log" '"partitions": 1' "cuzk prove --snap: one partition"
run 0 "$tmp/cli-verify2.log" "$cuzk" verify --snap "$tmp/snap.json" --vk "$keys.vk" --proof "$tmp/cli.proof"
run 1 "$tmp/cli-prove-bad.log" "$cuzk" prove --snap "$tmp/snap-bad.json" --params "$keys.params" \
  --proof "$tmp/cli-bad.proof"
expect_in "$tmp/cli-prove-bad.log" "(partition 0)" "cuzk prove --snap names the tampered partition"
[ -e "$tmp/cli-bad.proof" ] && { echo "FAIL: cuzk prove --snap wrote a proof for a tampered file"; fail=1; }
# The PCE from `cuzk pce extract`: 1,705,039 constraints (storage-proofs-update tests/circuit.rs)
# + 5 input rows, byte for byte the daemon's.
run 0 "$tmp/extract.log" "$cuzk" pce extract --circuit snap:2KiB -o "$tmp/snap2k.pce" --json
expect_in "$tmp/extract.log" '"constraints": *1705044' "pce extract --circuit snap:2KiB rows"
cmp -s "$tmp/snap2k.pce" "$tmp/data/pce/snap_2KiB.pce" || { echo "FAIL: the extracted PCE is not the daemon's"; fail=1; }
echo "total: $(($(date +%s) - t0)) s"
finish "SnapDeals e2e test"
