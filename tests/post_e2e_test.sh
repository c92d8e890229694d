#!/usr/bin/env bash
# WindowPoSt and WinningPoSt end to end at 2 KiB through the daemon, with no outside data:
#   - `cuzk post vanilla` seals sectors natively and writes PoSt request files (valid vanilla
#     proofs of the challenges drawn from the randomness and the prover);
#   - one daemon with srs.allow_test_keys (it extracts each circuit's PCE and makes TEST-ONLY keys
#     itself) proves WINDOW_POST_PARTITION (2 sectors; a V1 proof in partition 1) and
#     WINNING_POST; it verifies every proof before returning it, and cuzk-bench checks it again
#     against inputs it derives itself;
#   - a vanilla proof with one changed path hash: refused by the daemon (INVALID_ARGUMENT naming
#     the proof, its sector and the field; no proof), and by cuzk-bench before sending;
#   - the valid WinningPoSt proofs sent with other randomness, the V1 proof as partition 0:
#     refused (they prove other leaves than the challenged ones);
#   - `cuzk synth-post` (synthetic vanilla proofs, no sector sealed): a full Window partition and a
#     WinningPoSt proved by the same daemon like the sealed ones; its usage errors;
#   - `cuzk prove|verify --post` with the daemon's keys: the daemon's proof verified, refused
#     against another request; a proof made and verified without a daemon;
#   - `cuzk-bench batch --post`: the sealed and the synthetic Window files sent in turn, every proof
#     verified; a batch of two circuits refused (usage);
#   - two Window partitions under one request id (as Curio sends a deadline's), in turn and at
#     once: each gets its own proof; a retry of one joins its finished job;
#   - `cuzk post witness --check`: the native witness equals the circuit's synthesis; a tampered
#     file refused naming the sector; `cuzk pce extract --circuit window-post:2KiB`;
#   - the same proofs again from a restarted daemon without the PCEs (full synthesis).
# Usage: post_e2e_test.sh PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench
set -u
source "$(dirname "$0")/e2e_lib.sh" "$@"
t0=$(date +%s)
run 0 "$tmp/window-gen.log" "$cuzk" post vanilla --kind window --sector-size 2KiB --sectors 2 --first-sector 7 \
  --rng-seed 5 --out "$tmp/window.json"
run 0 "$tmp/winning-gen.log" "$cuzk" post vanilla --kind winning --sector-size 2KiB --sectors 4 --rng-seed 6 \
  --out "$tmp/winning.json"
# A V1 WindowPoSt proof in partition 1: its challenges depend on the sector's index in the proof.
run 0 "$tmp/v1-gen.log" "$cuzk" post vanilla --proof StackedDrgWindow2KiBV1 --partition-index 1 --first-sector 20 \
  --out "$tmp/v1.json"
run 2 "$tmp/gen-usage.log" "$cuzk" post vanilla --kind window --sector-size 2KiB --sectors 3 --out "$tmp/x.json"
expect_in "$tmp/gen-usage.log" "at most 2" "3 sectors in a 2 KiB WindowPoSt partition"
run 0 "$tmp/synth-window-gen.log" "$cuzk" synth-post --kind window --sector-size 2KiB --first-sector 30 --seed 9 \
  --out "$tmp/synth-window.json"
run 0 "$tmp/synth-winning-gen.log" "$cuzk" synth-post --kind winning --sector-size 2KiB --sectors 3 --json \
  --out "$tmp/synth-winning.json"
expect_in "$tmp/synth-winning-gen.log" '"sectors": 1,' "synth-post: one WinningPoSt sector drawn from 3"
run 2 "$tmp/synth-usage.log" "$cuzk" synth-post --kind window --sector-size 2KiB --sectors 3 --out "$tmp/x.json"
expect_in "$tmp/synth-usage.log" "at most 2" "synth-post: 3 sectors in a 2 KiB WindowPoSt partition"
run 2 "$tmp/synth-prover.log" "$cuzk" synth-post --kind winning --sector-size 2KiB --out "$tmp/x.json" \
  --prover-id 0100000000000000000000000000000000000000000000000000000000000001
expect_in "$tmp/synth-prover.log" "not the payload of an ID address" "synth-post: a prover id without a miner id"
[ -e "$tmp/x.json" ] && { echo "FAIL: a request file was written after a usage error"; fail=1; }
# One byte of the first sibling hash of the first proof's first path (bincode: sector_id 8, comm_r
# 32, sectors 8, inclusion_proofs 8, variant 4, root 32, leaf 32, path 8, hashes 8 -> offset 140).
python3 - "$tmp/window.json" "$tmp/window-bad.json" <<'PY'
import base64, json, sys
d = json.load(open(sys.argv[1]))
b = bytearray(base64.b64decode(d["vanilla_proofs"][0]))
b[140] ^= 1
d["vanilla_proofs"][0] = base64.b64encode(bytes(b)).decode()
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1].replace("window", "winning")))
d["randomness"] = "04" + d["randomness"][2:]
json.dump(d, open(sys.argv[2].replace("window-bad", "winning-other"), "w"))
d = json.load(open(sys.argv[1].replace("window", "v1")))
d["partition_index"] = 0
json.dump(d, open(sys.argv[2].replace("window-bad", "v1-partition0"), "w"))
PY
t1=$(date +%s)
echo "vanilla proofs: $((t1 - t0)) s"

printf '[srs]\nallow_test_keys = true\n' >"$tmp/cuzk.toml"
start_daemon

for kind in window winning v1 synth-window synth-winning; do
  ts=$(date +%s)
  circuit=${kind#synth-}
  run 0 "$tmp/$kind.log" "$bench" -a "$sock" --json single --post "$tmp/$kind.json" --proof-out "$tmp/$kind.proof"
  expect_in "$tmp/$kind.log" '"verified": *true' "$kind PoSt proof verified by cuzk-bench"
  expect_in "$tmp/$kind.log" "\"circuit\": *\"${circuit/v1/window}-post:2KiB\"" "$kind PoSt circuit"
  size=$(stat -c %s "$tmp/$kind.proof" 2>/dev/null || echo 0)
  [ "$size" -eq 192 ] || { echo "FAIL: $kind proof has $size bytes, expected 192"; fail=1; }
  echo "$kind PoSt through the daemon (keys, PCE, proof): $(($(date +%s) - ts)) s"
done

# The changed hash: the daemon refuses it at submit (sent as is with --no-verify), naming the
# proof, its sector and the field; cuzk-bench refuses it before sending (usage error).
run 1 "$tmp/bad.log" "$bench" -a "$sock" --json single --post "$tmp/window-bad.json" --no-verify \
  --proof-out "$tmp/bad.proof"
expect_in "$tmp/bad.log" "INVALID_ARGUMENT" "tampered proof refused at submit"
expect_in "$tmp/bad.log" "vanilla_proofs\[0\] (sector 7)" "tampered proof: the sector named"
expect_in "$tmp/bad.log" "inclusion_proofs\[0\].data.Single.root: the leaf and the path's siblings hash to a different root" \
  "tampered proof: the field named"
[ -e "$tmp/bad.proof" ] && { echo "FAIL: a proof was written for a tampered vanilla proof"; fail=1; }
run 2 "$tmp/bad-local.log" "$bench" -a "$sock" single --post "$tmp/window-bad.json"
expect_in "$tmp/bad-local.log" "(sector 7)" "cuzk-bench's own check names the sector"
run 1 "$tmp/other.log" "$bench" -a "$sock" single --post "$tmp/winning-other.json" --no-verify
expect_in "$tmp/other.log" "(from the randomness and the sector id) is leaf" "other randomness refused"
run 1 "$tmp/v1-partition0.log" "$bench" -a "$sock" single --post "$tmp/v1-partition0.json" --no-verify
expect_in "$tmp/v1-partition0.log" "(sector 20)" "a V1 proof of partition 1 sent as partition 0 refused"

# A batch of PoSt requests, two files in turn (4 proofs, 2 in flight), every proof verified.
run 0 "$tmp/batch.log" "$bench" -a "$sock" --json batch --post "$tmp/window.json" "$tmp/synth-window.json" -c 4 -j 2
expect_in "$tmp/batch.log" '"circuit": *"window-post:2KiB"' "batch --post: the circuit of the files"
expect_in "$tmp/batch.log" '"proofs": *4' "batch --post: 4 proofs"
expect_in "$tmp/batch.log" '"verified": *4' "batch --post: 4 proofs verified"
run 2 "$tmp/batch-mixed.log" "$bench" -a "$sock" batch --post "$tmp/window.json" "$tmp/winning.json" -c 2
expect_in "$tmp/batch-mixed.log" "a batch proves one circuit" "batch --post: two circuits refused"
run 2 "$tmp/batch-bad.log" "$bench" -a "$sock" batch --post "$tmp/window-bad.json" -c 1
expect_in "$tmp/batch-bad.log" "(sector 7)" "batch --post: a tampered file refused before sending"

# Curio's request ids (curio lib/ffi/cuzk_funcs.go): every partition of one WindowPoSt deadline is
# sent under the same id, with other vanilla proofs. Two such partitions (the sealed and the
# synthetic file) under one id, one after the other and then at once, each proof verified by
# cuzk-bench against its own request's inputs; then the first again (a retry after a timeout),
# which joins its finished job.
ts=$(date +%s)
wid='wdpost-1000-0-[10 11 12 13 14 15 16 17]'
for kind in window synth-window; do
  run 0 "$tmp/id-$kind.log" "$bench" -a "$sock" --json single --post "$tmp/$kind.json" --request-id "$wid"
  expect_in "$tmp/id-$kind.log" '"verified": *true' "$kind under a shared request id: its own proof"
done
wid2='wdpost-1000-0-[20 21 22 23 24 25 26 27]'
"$bench" -a "$sock" --json single --post "$tmp/window.json" --request-id "$wid2" >"$tmp/id2-window.log" 2>&1 &
p1=$!
"$bench" -a "$sock" --json single --post "$tmp/synth-window.json" --request-id "$wid2" >"$tmp/id2-synth.log" 2>&1 &
p2=$!
wait "$p1" || { echo "FAIL: concurrent partition 1 under one id failed"; tail -5 "$tmp/id2-window.log"; fail=1; }
wait "$p2" || { echo "FAIL: concurrent partition 2 under one id failed"; tail -5 "$tmp/id2-synth.log"; fail=1; }
expect_in "$tmp/id2-window.log" '"verified": *true' "concurrent partitions under one id: the first's proof"
expect_in "$tmp/id2-synth.log" '"verified": *true' "concurrent partitions under one id: the second's proof"
run 0 "$tmp/id-retry.log" "$bench" -a "$sock" --json single --post "$tmp/window.json" --request-id "$wid"
expect_in "$tmp/id-retry.log" '"verified": *true' "a retry under its id: the proof of its own request"
expect_in "$tmp/daemon.log" 'request_new_job request_id="wdpost-1000-0-\[10 11 12 13 14 15 16 17\]".*outcome=new_content' \
  "a second partition under one id logged as a new job"
expect_in "$tmp/daemon.log" 'request_joined request_id="wdpost-1000-0-\[10 11 12 13 14 15 16 17\]".*state=completed' \
  "the retry logged as joining the finished job"
echo "request ids: $(($(date +%s) - ts)) s"

stop_daemon

# The native witness (what the daemon proved from) equals the circuit's synthesis.
for kind in window winning v1 synth-window; do
  run 0 "$tmp/witness-$kind.log" "$cuzk" post witness --post "$tmp/$kind.json" --check --json
  expect_in "$tmp/witness-$kind.log" '"matches_synthesis": *true' "$kind: native witness equals synthesis"
done
run 1 "$tmp/witness-bad.log" "$cuzk" post witness --post "$tmp/window-bad.json"
expect_in "$tmp/witness-bad.log" "(sector 7)" "post witness names the tampered sector"
# The PoSt PCE from one replicated sector: 21,866 constraints + 23 inputs (docs/post.md counts).
run 0 "$tmp/extract.log" "$cuzk" pce extract --circuit window-post:2KiB -o "$tmp/w2k.pce" --json
expect_in "$tmp/extract.log" '"constraints": *21889' "pce extract --circuit window-post:2KiB rows"
expect_in "$tmp/extract.log" '"circuit_id": *"window-post:2KiB"' "pce extract: the circuit id"
run 0 "$tmp/extract-verify.log" "$cuzk" pce verify "$tmp/w2k.pce"

# Without a daemon, with the daemon's keys: `cuzk verify --post` accepts the daemon's proof and
# refuses it against another request; `cuzk prove --post` proves and verifies on its own.
keys="$tmp/data/params/window-post_2KiB"
run 0 "$tmp/cli-verify.log" "$cuzk" verify --post "$tmp/window.json" --vk "$keys.vk" --proof "$tmp/window.proof"
run 1 "$tmp/cli-verify-other.log" "$cuzk" verify --post "$tmp/v1.json" --vk "$keys.vk" --proof "$tmp/window.proof"
run 0 "$tmp/cli-prove.log" "$cuzk" prove --post "$tmp/window.json" --params "$keys.params" --proof "$tmp/cli.proof"
run 0 "$tmp/cli-verify2.log" "$cuzk" verify --post "$tmp/window.json" --vk "$keys.vk" --proof "$tmp/cli.proof"
run 1 "$tmp/cli-prove-bad.log" "$cuzk" prove --post "$tmp/window-bad.json" --params "$keys.params" \
  --proof "$tmp/cli-bad.proof"
expect_in "$tmp/cli-prove-bad.log" "(sector 7)" "cuzk prove --post names the tampered sector"
[ -e "$tmp/cli-bad.proof" ] && { echo "FAIL: cuzk prove --post wrote a proof for a tampered file"; fail=1; }

# The keys kept, the PCEs gone: the next proofs come from full synthesis (ProvingCS) while the
# PCE is extracted again in the background.
rm -f "$tmp"/data/pce/*.pce
start_daemon
for kind in window winning; do
  run 0 "$tmp/$kind-full.log" "$bench" -a "$sock" --json single --post "$tmp/$kind.json"
  expect_in "$tmp/$kind-full.log" '"verified": *true' "$kind PoSt proof from full synthesis verified"
  expect_in "$tmp/daemon.log" "pce_extract_start circuit=$kind-post:2KiB (background; full synthesis meanwhile)" \
    "$kind PoSt proved by full synthesis"
done
stop_daemon
echo "daemon: $(($(date +%s) - t1)) s"
finish "PoSt e2e test"
