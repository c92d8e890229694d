#!/usr/bin/env bash
# A 32 GiB PoRep C2 end to end through the daemon on one H200 (issue #18), in two device commands
# of at most 10 minutes each, binaries built on the development machine and carried in .devbuild/
# (shared libraries in .devbuild/lib):
#
#   bash bench/device-porep-32g.sh setup
#     the GPU setup tests; a daemon started in its own session (it outlives the command, so the
#     next command finds its keys resident); `cuzk-bench preload --circuit porep:32GiB`: the PCE,
#     the TEST-ONLY keys made on the GPU and written to the data dir, loaded; a synthetic 32 GiB C1.
#   bash bench/device-porep-32g.sh prove
#     against that daemon: one proof (every partition verified by the daemon), checked again by
#     `cuzk verify --porep`; a C1 with one flipped byte refused; then `cuzk-bench batch` (COUNT
#     proofs, J in flight) with GPU utilisation sampled every 200 ms and the daemon's peak RSS.
#   bash bench/device-porep-32g.sh restart
#     the daemon stopped and started again with the config of this call's variables (e.g. NICE),
#     for an A/B in one session: `prove` then loads the keys written by `setup` from the disk.
#
# Logs go to $OUT (the device tool brings back 8 files: `tar` them). SIZE=32GiB (or 64GiB, 512MiB
# for a rehearsal), COUNT=4, J=2, WORKERS=6 synthesis workers, LOOKAHEAD=WORKERS partitions
# synthesized ahead of the GPU, NICE=0 (synthesis.nice), WPD=2 (gpus.workers_per_device: 2 lets
# the next partition's upload overlap this one's kernels), OVERLAP_H=false (gpus.overlap_h),
# BUDGET=110GiB (memory.total_budget: `prove` fails when the daemon's peak RSS, VmHWM from /proc,
# went over it), BATCH_ONLY=1 (prove: the single proof as a warm-up only, without `cuzk verify` and
# the changed-C1 check), CAP=16 (gpus.memory_limit in GiB: the streamed prover under that cap).
set -u
D=${DATA:-/tmp/cuzk-porep}
source "$(dirname "$0")/device_lib.sh"
COUNT=${COUNT:-4}
J=${J:-2}
PHASE=${1:-setup}
# The budget is explicit: on these machines MemTotal starts small and grows as memory is used.
BUDGET=${BUDGET:-110GiB}
# CAP (GiB): gpus.memory_limit, so the GPU behaves as a card of that size (the prover streams its
# key when it does not fit resident under the cap); empty: no cap.
config=$(printf '[memory]\ntotal_budget = "%s"\n[gpus]\nbackend = "gpu"\nworkers_per_device = %s\noverlap_h = %s\nmemory_limit = "%s"\n[synthesis]\nworkers = %s\nlookahead = %s\nnice = %s\n[srs]\nallow_test_keys = true\n' \
  "$BUDGET" "${WPD:-2}" "${OVERLAP_H:-false}" "${CAP:+${CAP}GiB}" "${WORKERS:-6}" "${LOOKAHEAD:-${WORKERS:-6}}" "${NICE:-0}")
config=${config/memory_limit = \"\"/memory_limit = \"none\"}

if [ "$PHASE" = restart ]; then
  stop_daemon
  start_daemon "$config"
  echo "daemon restarted: $(tr '\n' ' ' <"$D/cuzk.toml")"
  exit $fails
fi

if [ "$PHASE" = setup ]; then
  { date -u; nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; df -h "$D" | tail -1;
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; } | tee "$OUT/machine.txt"
  # The setup's tests: the GPU's against the CPU's (test_gpu_setup) and the streamed file (test_groth16's
  # SetupFile cases).
  for t in test_gpu_setup test_groth16; do
    if "$B/tests/$t" --gtest_filter='GpuSetup*:SetupFile*' >"$OUT/$t.log" 2>&1; then
      echo "pass $t ($(grep -c '^\[       OK' "$OUT/$t.log") ok)"
    else
      echo "FAIL $t"; grep -E "Failure|Expected|Which is|error" "$OUT/$t.log" | head -20; fails=$((fails + 1))
    fi
  done
  start_daemon "$config"
  "$B/apps/cuzk/cuzk" synth-c1 --sector-size "$SIZE" --out "$D/c1.json" >"$OUT/synth-c1.txt" 2>&1 || fails=$((fails + 1))
  t0=$(now)
  timeout 480 "$B/apps/cuzk-bench/cuzk-bench" -a "$SOCK" --connect-timeout 60 --json preload --circuit "porep:$SIZE" \
    >"$OUT/preload.json" 2>"$OUT/preload.err" || { echo "preload did not finish (rc $?)"; fails=$((fails + 1)); }
  echo "preload porep:$SIZE: $(secs "$t0") s"
  grep -E "pce_|srs_|setup|error|warn" "$D/daemon.log" | cut -c1-400 | tee "$OUT/setup-events.txt"
  ls -la "$D"/params 2>/dev/null | tee "$OUT/params-ls.txt"
  mem_line | tee "$OUT/mem-after-setup.txt"
  df -h "$D" | tail -1
  cp "$D/daemon.log" "$OUT/daemon-setup.log"
  echo "failures: $fails"
  exit $fails
fi

# ---- prove ----
mem_line
bench --json preload --circuit "porep:$SIZE" >"$OUT/preload2.json" 2>&1 || { echo "FAIL preload"; fails=$((fails + 1)); }
gpu_sampler_start
t0=$(now)
if bench --json single --c1 "$D/c1.json" --proof-out "$D/proof.bin" >"$OUT/single.json" 2>"$OUT/single.err"; then
  echo "single proof (the first: includes the upload of the key to the GPU): $(secs "$t0") s"
  vk=$(ls "$D"/params/*.vk | head -1)
  [ -n "${BATCH_ONLY:-}" ] ||
    "$B/apps/cuzk/cuzk" verify --porep --c1 "$D/c1.json" --proof "$D/proof.bin" --vk "$vk" --json | tee "$OUT/verify.json" ||
    fails=$((fails + 1))
else
  echo "FAIL single"; tail -5 "$OUT/single.err"; fails=$((fails + 1))
fi
if [ -z "${BATCH_ONLY:-}" ]; then
  # C1 with comm_d's first byte changed (still a valid byte, so only the daemon's checks can tell:
  # comm_d no longer matches the data paths) must be refused with the field named.
  python3 - "$D/c1.json" "$D/c1-flipped.json" <<'EOF'
import re, sys
d = open(sys.argv[1]).read()
m = re.search(r'"comm_d"\s*:\s*\[\s*(\d+)', d)
v = (int(m.group(1)) + 1) % 256
open(sys.argv[2], 'w').write(d[:m.start(1)] + str(v) + d[m.end(1):])
EOF
  if bench single --c1 "$D/c1-flipped.json" >"$OUT/flipped.txt" 2>&1; then
    echo "FAIL: a changed C1 was proven"; fails=$((fails + 1))
  else
    echo "changed C1 refused: $(grep -m1 -iE "invalid|error|comm_d" "$OUT/flipped.txt" | cut -c1-300)"
  fi
fi
mem_line | tee "$OUT/mem-before-batch.txt"
if timeout "${BATCH_LIMIT:-1800}" "$B/apps/cuzk-bench/cuzk-bench" -a "$SOCK" --json batch --c1 "$D/c1.json" \
  -c "$COUNT" -j "$J" --timeline "$OUT/timeline.csv" >"$OUT/batch.json" 2>"$OUT/batch.err"; then
  python3 "$(dirname "$0")/batch_summary.py" "$OUT/batch.json"
else
  echo "FAIL batch"; tail -5 "$OUT/batch.err"; fails=$((fails + 1))
fi
gpu_sampler_stop
mem_line | tee "$OUT/mem-after-batch.txt"
# The daemon's peak RSS since it started (the kernel's count) against memory.total_budget.
hwm_kb=$(awk '/VmHWM/ {print $2}' "/proc/$(daemon_pid)/status" 2>/dev/null)
budget_kb=$(python3 -c 'import re,sys; m=re.fullmatch(r"(\d+)(GiB|MiB)",sys.argv[1]); print(int(m[1])<<(20 if m[2]=="GiB" else 10))' "$BUDGET")
if [ -n "$hwm_kb" ] && [ "$hwm_kb" -le "$budget_kb" ]; then
  echo "peak RSS $((hwm_kb >> 20)) GiB within memory.total_budget = $BUDGET (VmHWM $hwm_kb kB)"
else
  echo "FAIL: peak RSS ${hwm_kb:-?} kB over memory.total_budget = $BUDGET"; fails=$((fails + 1))
fi
grep -E "error|warn|fallback" "$D/daemon.log" | tail -20 | cut -c1-300 >"$OUT/daemon-warnings.txt"
cp "$D/daemon.log" "$OUT/daemon-prove.log"
echo "failures: $fails"
exit $fails
