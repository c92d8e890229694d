#!/usr/bin/env bash
# A SnapDeals (EmptySectorUpdate) proof at production size on the device machine (issue #21 item 5):
# a synthetic vanilla set from `cuzk synth-snap` (16 partitions at 32 GiB), the daemon with
# gpus.backend = "gpu" making the TEST-ONLY keys on the GPU and holding them in memory
# (srs.test_keys, TEST_KEYS overrides), then COUNT proofs of the whole request through
# `cuzk-bench single --snap` (every partition verified by the daemon, the proof again by
# cuzk-bench). Prints the preload (PCE extraction, keys, device prover), each proof's client wall
# time and stages, the per-partition stages from the daemon's log and the daemon's peak RSS.
#   SIZE=32GiB COUNT=2 TEST_KEYS=memory
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
D=${DATA:-/tmp/cuzk-snap}
SIZE=${SIZE:-32GiB}
COUNT=${COUNT:-2}
TEST_KEYS=${TEST_KEYS:-memory}
mkdir -p "$OUT" "$D"
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
SOCK=unix://$D/cuzk.sock
bench() { "$B/apps/cuzk-bench/cuzk-bench" -a "$SOCK" --connect-timeout 60 "$@"; }
fails=0
printf '[gpus]\nbackend = "gpu"\n[srs]\nallow_test_keys = true\ntest_keys = "%s"\n' "$TEST_KEYS" >"$D/cuzk.toml"
setsid nohup "$B/apps/cuzk-daemon/cuzk-daemon" --config "$D/cuzk.toml" --data-dir "$D" --listen "$SOCK" \
  --pid-file "$D/daemon.pid" >"$D/daemon.log" 2>&1 </dev/null &
/usr/bin/time -f "synth-snap $SIZE: %e s wall, %U s user, %M KB" "$B/apps/cuzk/cuzk" synth-snap --sector-size "$SIZE" \
  --out "$D/snap.json" 2>&1 | tail -1
"$B/apps/cuzk/cuzk" snap witness --snap "$D/snap.json" --partition 0 --json >"$OUT/witness.json" 2>&1 &&
  echo "native witness, partition 0: $(tr -d '\n ' <"$OUT/witness.json" | cut -c1-300)"
t0=$(date +%s.%N)
bench --json preload --circuit "snap:$SIZE" >"$OUT/preload.json" 2>&1 || { echo "FAIL preload"; fails=$((fails + 1)); }
python3 -c "import sys,time; print(f'preload snap:$SIZE: {time.time()-float(sys.argv[1]):.1f} s')" "$t0"
for i in $(seq 1 "$COUNT"); do
  bench --json single --snap "$D/snap.json" --proof-out "$D/proof-$i.bin" >"$OUT/snap-$i.json" 2>"$OUT/snap-$i.err" ||
    { echo "FAIL snap $i"; tail -3 "$OUT/snap-$i.err"; fails=$((fails + 1)); }
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['status'], 'verified', d.get('verified'), 'client', d['client_wall_ms'], 'ms', d['timings_ms'])" "$OUT/snap-$i.json" "snap $i"
  echo "proof bytes: $(stat -c %s "$D/proof-$i.bin" 2>/dev/null)"
done
grep -E "pce_extracted|srs_setup_done|gpu_prover_ready|gpu_g2|tables_dropped|job_finished|error" "$D/daemon.log" |
  cut -c1-300 | tee "$OUT/events.txt"
grep -E "VmHWM|VmRSS" "/proc/$(cat "$D/daemon.pid")/status" | tr -s ' ' | tr '\n' ' '; echo
cp "$D/daemon.log" "$OUT/daemon.log"
kill "$(cat "$D/daemon.pid")" 2>/dev/null
echo "failures: $fails"
exit $fails
