#!/usr/bin/env bash
# PoRep C2 end to end at 2 KiB, with no outside data: seal a random sector natively (C1 output),
# test-only keys for the 2 KiB circuit, then
#   - without a daemon: `cuzk prove --porep` (each proof is verified before it is written) and
#     `cuzk verify --porep` (inputs derived from C1): valid -> 0; a tampered proof, the proof
#     against another sector's C1 -> not 0;
#   - a C1 with one flipped byte: prove fails naming the JSON field, and writes no proof;
#   - through the daemon: POREP_SEAL_COMMIT with the wrapped C1 (cuzk-bench single --c1 checks
#     the proof against the inputs it derives itself); the flipped C1 refused by cuzk-bench;
#   - a regenerated C1 under the same request id (as Curio retries a resealed sector): a new job
#     whose proof verifies against its own C1;
#   - cuzk-bench batch --c1 -c 2 -j 2 --json: proofs 2, failed 0, verified 2; the flipped C1
#     refused (exit 2, the field named, no proof).
# Usage: porep_e2e_test.sh PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench
set -u
source "$(dirname "$0")/e2e_lib.sh" "$@"
t0=$(date +%s)
run 0 "$tmp/seal.log" "$cuzk" seal --sector-size 2KiB --random --rng-seed 11 --out "$tmp/c1.json"
run 0 "$tmp/seal2.log" "$cuzk" seal --sector-size 2KiB --random --rng-seed 12 --wrapper --out "$tmp/c1-other.json"
run 0 "$tmp/setup.log" "$cuzk" setup --circuit porep --sector-size 2KiB --params "$tmp/p.params" --vk "$tmp/p.vk" -q
t1=$(date +%s)
echo "seal x2 + setup: $((t1 - t0)) s"

run 0 "$tmp/prove.log" "$cuzk" prove --porep --c1 "$tmp/c1.json" --params "$tmp/p.params" --proof "$tmp/proof.bin" -v
t2=$(date +%s)
echo "prove --porep: $((t2 - t1)) s"
size=$(stat -c %s "$tmp/proof.bin" 2>/dev/null || echo 0)
[ "$size" -eq 192 ] || { echo "FAIL: proof.bin has $size bytes, expected 192"; fail=1; }
run 0 "$tmp/verify.log" "$cuzk" verify --porep --c1 "$tmp/c1.json" --vk "$tmp/p.vk" --proof "$tmp/proof.bin"
run 1 "$tmp/verify-other.log" "$cuzk" verify --porep --c1 "$tmp/c1-other.json" --vk "$tmp/p.vk" --proof "$tmp/proof.bin"
# A valid point in the wrong place: A and C swapped (both G1, so the proof still decodes).
{ dd if="$tmp/proof.bin" bs=1 skip=144 count=48 2>/dev/null
  dd if="$tmp/proof.bin" bs=1 skip=48 count=96 2>/dev/null
  dd if="$tmp/proof.bin" bs=1 skip=0 count=48 2>/dev/null; } >"$tmp/swapped.bin"
run 1 "$tmp/verify-swapped.log" "$cuzk" verify --porep --c1 "$tmp/c1.json" --vk "$tmp/p.vk" --proof "$tmp/swapped.bin"
run 2 "$tmp/verify-usage.log" "$cuzk" verify --porep --vk "$tmp/p.vk" --proof "$tmp/proof.bin"
# verify --porep validates C1 as strictly as prove does: one changed Merkle path hash is an error (2).
python3 - "$tmp/c1.json" "$tmp/c1-path.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def flip(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "hashes" and v and isinstance(v[0], list) and v[0]:
                v[0][0] ^= 1
                return True
            if flip(v):
                return True
    elif isinstance(x, list):
        return any(flip(v) for v in x)
    return False
assert flip(d["vanilla_proofs"]), "no Merkle path hash found"
json.dump(d, open(sys.argv[2], "w"))
PY
run 2 "$tmp/verify-path.log" "$cuzk" verify --porep --c1 "$tmp/c1-path.json" --vk "$tmp/p.vk" --proof "$tmp/proof.bin"
grep -q "vanilla_proofs" "$tmp/verify-path.log" ||
  { echo "FAIL: verify --porep did not name the changed path:"; cat "$tmp/verify-path.log"; fail=1; }

# One flipped byte of comm_d in C1: refused before any proving, naming the field; no proof file.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["comm_d"][5]^=1; json.dump(d,open(sys.argv[2],"w"))' \
  "$tmp/c1.json" "$tmp/c1-flipped.json"
cmp -s "$tmp/c1.json" "$tmp/c1-flipped.json" && { echo "FAIL: could not flip a byte of comm_d"; fail=1; }
run 1 "$tmp/prove-flipped.log" "$cuzk" prove --porep --c1 "$tmp/c1-flipped.json" --params "$tmp/p.params" \
  --proof "$tmp/flipped.bin"
grep -q "comm_d" "$tmp/prove-flipped.log" || { echo "FAIL: no field named:"; cat "$tmp/prove-flipped.log"; fail=1; }
[ -e "$tmp/flipped.bin" ] && { echo "FAIL: a proof was written for a flipped C1"; fail=1; }

# Through a daemon with the default configuration and no official parameter file: refused,
# naming the file and the setting (no silent test-only keys).
run 1 "$tmp/bench-nokeys.log" "$bench" --spawn-daemon "$daemon" --data-dir "$tmp/data-nokeys" --spawn-timeout 60 \
  single --c1 "$tmp/c1-other.json" --no-verify
grep -q "v28-stacked-proof-of-replication.*srs.allow_test_keys" "$tmp/bench-nokeys.log" ||
  { echo "FAIL: a missing official parameter file was not named:"; tail -5 "$tmp/bench-nokeys.log"; fail=1; }

# Through the daemon, with the keys above placed where it looks for porep:2KiB's test-only keys
# (srs.allow_test_keys = true).
printf '[srs]\nallow_test_keys = true\n' >"$tmp/cuzk.toml"
mkdir -p "$tmp/data/params"
cp "$tmp/p.params" "$tmp/data/params/porep_2KiB.params"
cp "$tmp/p.vk" "$tmp/data/params/porep_2KiB.vk"
# One daemon for every request below (each start would extract the PCE and load the key again).
start_daemon
run 0 "$tmp/bench.log" "$bench" -a "$sock" --json single --c1 "$tmp/c1-other.json" --miner-id 1000 --proof-out "$tmp/daemon-proof.bin"
grep -q '"verified": *true' "$tmp/bench.log" || { echo "FAIL: daemon proof not verified:"; tail -20 "$tmp/bench.log"; fail=1; }
run 0 "$tmp/verify-daemon.log" "$cuzk" verify --porep --c1 "$tmp/c1-other.json" --vk "$tmp/p.vk" \
  --proof "$tmp/daemon-proof.bin"
# A PoRep whose C1 was made again keeps Curio's request id (porep-<miner>-<sector>): the second
# C1 under the id is a new job, and its proof verifies against its own C1's inputs.
for c1 in c1-other c1; do
  run 0 "$tmp/bench-id-$c1.log" "$bench" -a "$sock" --json single --c1 "$tmp/$c1.json" --miner-id 1000 \
    --request-id porep-1000-1 --proof-out "$tmp/id-$c1.bin"
  expect_in "$tmp/bench-id-$c1.log" '"verified": *true' "$c1 under porep-1000-1: verified against its own C1"
  run 0 "$tmp/verify-id-$c1.log" "$cuzk" verify --porep --c1 "$tmp/$c1.json" --vk "$tmp/p.vk" --proof "$tmp/id-$c1.bin"
done
cmp -s "$tmp/id-c1-other.bin" "$tmp/id-c1.bin" && { echo "FAIL: two C1s under one id got the same proof"; fail=1; }
expect_in "$tmp/daemon.log" 'request_new_job request_id=porep-1000-1 old_job=porep-1000-1 .*outcome=new_content' \
  "a regenerated C1 under its id logged as a new job"
# cuzk-bench checks a C1 before sending it (usage error, naming the field); the daemon's own
# refusal of the same C1 (INVALID_ARGUMENT at submit) is test_engine's BadRequests case.
run 2 "$tmp/bench-flipped.log" "$bench" -a "$sock" \
  single --c1 "$tmp/c1-flipped.json" --no-verify
grep -q "comm_d" "$tmp/bench-flipped.log" ||
  { echo "FAIL: cuzk-bench did not name the bad field:"; tail -5 "$tmp/bench-flipped.log"; fail=1; }

# The wrapped C1 sent as another miner's sector (as Curio sends miner_id with the wrapper's
# SectorNum): the daemon refuses it, its replica_id is not that sector's.
"$bench" -a "$sock" single --c1 "$tmp/c1-other.json" \
  --miner-id 1001 --no-verify >"$tmp/bench-miner.log" 2>&1 && { echo "FAIL: another miner's sector was proven"; fail=1; }
grep -q "replica_id is not that of miner f01001" "$tmp/bench-miner.log" ||
  { echo "FAIL: the daemon did not refuse another miner's sector:"; tail -5 "$tmp/bench-miner.log"; fail=1; }

# batch --c1: two PoRep proofs in flight at once, each verified by cuzk-bench (inputs re-derived).
batch_out=$("$bench" -a "$sock" --json \
  batch --c1 "$tmp/c1-other.json" -c 2 -j 2 2>"$tmp/batch.err")
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: batch --c1 exited $rc: $batch_out"; tail -20 "$tmp/batch.err"; fail=1; }
for want in '"proofs": 2' '"failed": 0' '"verified": 2'; do
  echo "$batch_out" | grep -q "^  $want,\?\$" || { echo "FAIL: batch --c1: expected $want in: $batch_out"; fail=1; }
done
# The flipped C1: refused before anything is sent (usage error, the field named), no proof.
batch_out=$("$bench" -a "$sock" --json \
  batch --c1 "$tmp/c1-flipped.json" -c 2 -j 2 2>"$tmp/batch-flipped.err")
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: batch with a flipped C1 exited $rc, expected 2"; tail -5 "$tmp/batch-flipped.err"; fail=1; }
grep -q "comm_d" "$tmp/batch-flipped.err" ||
  { echo "FAIL: batch did not name the bad field:"; tail -5 "$tmp/batch-flipped.err"; fail=1; }
echo "$batch_out" | grep -q '"proofs": *[1-9]' && { echo "FAIL: batch with a flipped C1 made proofs: $batch_out"; fail=1; }
stop_daemon
echo "daemon: $(( $(date +%s) - t2 )) s"

finish "PoRep e2e test"
