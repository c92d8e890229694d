#!/usr/bin/env bash
# PoSt at production size on the device machine (binaries in .devbuild/, test-only keys made by
# the daemon on the GPU): WinningPoSt and one WindowPoSt partition of 32 GiB sectors from
# `cuzk synth-post` request files, through the daemon with gpus.backend = "gpu". Prints the
# preload (PCE extraction + keys + device prover) and each proof's client wall time and stages;
# every proof is verified by the daemon and again by cuzk-bench. JSON to $OUT.
#   SIZE=32GiB WINNING=5 (WinningPoSt proofs) WINDOW=2 (WindowPoSt partitions; 0 skips Window)
#   BUSY=1: then the WinningPoSt proofs again while a 32 GiB PoRep batch (PCOUNT=4 proofs, 2 in
#   flight) keeps the GPU busy (its keys made first: ~2 minutes); the batch's summary, its GPU
#   samples and its proofs' completion times are printed too.
#   TEST_KEYS=memory (srs.test_keys): the keys are held in memory only, never written, because
#   the 32 GiB WindowPoSt key's .params file does not fit the 64 GiB disk ("cannot allocate
#   space") while the 128 GiB of RAM hold it; status.json lists them with storage "memory".
#   With BUSY=1 the PoRep key joins them: TEST_KEYS=auto writes what fits on the disk instead.
set -u
D=${DATA:-/tmp/cuzk-post}
source "$(dirname "$0")/device_lib.sh"
WINNING=${WINNING:-5}
WINDOW=${WINDOW:-2}
BUSY=${BUSY:-0}
TEST_KEYS=${TEST_KEYS:-memory}
start_daemon "$(printf '[gpus]\nbackend = "gpu"\n[srs]\nallow_test_keys = true\ntest_keys = "%s"\n' "$TEST_KEYS")"
/usr/bin/time -f "synth-post winning: %e s wall, %U s user, %M KB" "$B/apps/cuzk/cuzk" synth-post --kind winning \
  --sector-size "$SIZE" --out "$D/winning.json" 2>&1 | tail -1
prove() { # kind, count
  local kind=$1 n=$2 t0
  t0=$(date +%s.%N)
  bench --json preload --circuit "$kind-post:$SIZE" >"$OUT/preload-$kind.json" 2>&1 || { echo "FAIL preload $kind"; fails=$((fails + 1)); }
  python3 -c "import sys,time; print(f'preload $kind-post:$SIZE: {time.time()-float(sys.argv[1]):.1f} s')" "$t0"
  for i in $(seq 1 "$n"); do
    bench --json single --post "$D/$kind.json" >"$OUT/$kind-$i.json" 2>"$OUT/$kind-$i.err" || { echo "FAIL $kind $i"; tail -3 "$OUT/$kind-$i.err"; fails=$((fails + 1)); }
    single_line "$OUT/$kind-$i.json" "$kind $i"
  done
}
prove winning "$WINNING"
if [ "$BUSY" = 1 ]; then
  t0=$(date +%s)
  bench --json preload --circuit "porep:$SIZE" >"$OUT/preload-porep.json" 2>&1 || { echo "FAIL preload porep"; fails=$((fails + 1)); }
  "$B/apps/cuzk/cuzk" synth-c1 --sector-size "$SIZE" --out "$D/c1.json" >/dev/null || fails=$((fails + 1))
  echo "porep:$SIZE keys, PCE and prover: $(($(date +%s) - t0)) s"
  gpu_sampler_start
  bench --json batch --c1 "$D/c1.json" -c "${PCOUNT:-4}" -j 2 --timeline "$OUT/porep-timeline.csv" \
    >"$OUT/porep-batch.json" 2>"$OUT/porep-batch.err" &
  batch=$!
  sleep 45  # the batch's partitions queued and the GPU busy
  for i in $(seq 1 "$WINNING"); do
    bench --json single --post "$D/winning.json" >"$OUT/winning-busy-$i.json" 2>"$OUT/winning-busy-$i.err" || fails=$((fails + 1))
    single_line "$OUT/winning-busy-$i.json" "winning (GPU busy with PoRep) $i"
    sleep 3
  done
  wait $batch || { echo "FAIL porep batch"; fails=$((fails + 1)); }
  gpu_sampler_stop
  python3 "$(dirname "$0")/batch_summary.py" "$OUT/porep-batch.json"
  echo "porep proofs completed at (ms): $(grep complete "$OUT/porep-timeline.csv" | cut -d, -f1 | tr '\n' ' ')"
fi
if [ "$WINDOW" -gt 0 ]; then
  /usr/bin/time -f "synth-post window: %e s wall, %U s user, %M KB" "$B/apps/cuzk/cuzk" synth-post --kind window \
    --sector-size "$SIZE" --out "$D/window.json" 2>&1 | tail -1
  prove window "$WINDOW"
fi
bench --json status >"$OUT/status.json" 2>&1 || true  # the keys' storage ("memory") and sizes
grep -E "pce_|srs_|gpu_prover|job_submitted|error|warn" "$D/daemon.log" | cut -c1-300 | tee "$OUT/events.txt"
mem_line
stop_daemon
echo "failures: $fails"
exit $fails
