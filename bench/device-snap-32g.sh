#!/usr/bin/env bash
# A SnapDeals (EmptySectorUpdate) proof at production size on the device machine (issue #21 item 5):
# a synthetic vanilla set from `cuzk synth-snap` (16 partitions at 32 GiB), the daemon with
# gpus.backend = "gpu" making the TEST-ONLY keys on the GPU and holding them in memory
# (srs.test_keys, TEST_KEYS overrides), then COUNT proofs of the whole request through
# `cuzk-bench single --snap` (every partition verified by the daemon, the proof again by
# cuzk-bench). Prints the preload (PCE extraction, keys, device prover), each proof's client wall
# time and stages, the per-partition stages from the daemon's log and the daemon's peak RSS. Then,
# with BATCH=N, the steady state: `cuzk-bench batch --snap` with N proofs, J in flight, GPU
# utilisation sampled every 200 ms.
#   SIZE=32GiB COUNT=2 BATCH=0 J=2 NICE=0 (synthesis.nice) TEST_KEYS=memory
set -u
D=${DATA:-/tmp/cuzk-snap}
source "$(dirname "$0")/device_lib.sh"
COUNT=${COUNT:-2}
BATCH=${BATCH:-0}
J=${J:-2}
TEST_KEYS=${TEST_KEYS:-memory}
start_daemon "$(printf '[gpus]\nbackend = "gpu"\n[synthesis]\nnice = %s\n[srs]\nallow_test_keys = true\ntest_keys = "%s"\n' \
  "${NICE:-0}" "$TEST_KEYS")"
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
  single_line "$OUT/snap-$i.json" "snap $i"
  echo "proof bytes: $(stat -c %s "$D/proof-$i.bin" 2>/dev/null)"
done
if [ "$BATCH" -gt 0 ]; then
  gpu_sampler_start
  bench --json batch --snap "$D/snap.json" -c "$BATCH" -j "$J" --timeline "$OUT/timeline.csv" >"$OUT/batch.json" \
    2>"$OUT/batch.err" && python3 "$(dirname "$0")/batch_summary.py" "$OUT/batch.json" ||
    { fail "batch"; tail -5 "$OUT/batch.err"; }
  gpu_sampler_stop
fi
grep -E "pce_extracted|srs_setup_done|gpu_prover_ready|gpu_g2|tables_dropped|job_finished|error" "$D/daemon.log" |
  cut -c1-300 | tee "$OUT/events.txt"
mem_line
cp "$D/daemon.log" "$OUT/daemon.log"
stop_daemon
echo "failures: $fails"
exit $fails
