#!/usr/bin/env bash
# The daemon's device stage on the GPUs vs the CPU, on the device machine (binaries built on the
# development machine and carried in .devbuild/, their shared libraries in .devbuild/lib):
#   1. the engine's GPU tests on the real devices (test_engine EngineGpu*; every proof verified);
#   2. cuzk-bench against a daemon it spawns, the same requests with gpus.backend = "cpu", "gpu"
#      on every device, and "gpu" on device 0 alone: PoRep C2 of a sealed 2 KiB sector and of a
#      valid synthetic 512 MiB C1 (keys and PCE made once in the data dir by `preload`), and
#      built-in 2^20-constraint circuits with 4 partitions per request.
# JSON results go to $OUT; a summary line per run on stdout.   SIZES="2KiB 512MiB", K=20,
# BACKENDS="cpu gpu gpu0" (a subset: e.g. "gpu" for a before/after check of the GPU path alone).
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
SIZES=${SIZES:-"2KiB 512MiB"}
K=${K:-20}
BACKENDS=${BACKENDS:-"cpu gpu gpu0"}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo;
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null; } | tee "$OUT/machine.txt"
fails=0
"$B"/tests/test_engine --gtest_filter='EngineGpu*' >"$OUT/test_engine_gpu.txt" 2>&1 || fails=$((fails + 1))
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? from .* ran" "$OUT/test_engine_gpu.txt"
data=$(mktemp -d)
W=$(mktemp -d)
for be in cpu gpu gpu0; do
  {
    echo "[gpus]"
    echo "backend = \"${be%0}\""
    [ "$be" = gpu0 ] && echo "devices = [0]"
    printf '[srs]\nallow_test_keys = true\n'
  } >"$data/$be.toml"
done
bench() {
  local cfg=$1
  shift
  "$B/apps/cuzk-bench/cuzk-bench" --spawn-daemon "$B/apps/cuzk-daemon/cuzk-daemon" --data-dir "$data" \
    --spawn-timeout 300 --daemon-arg=--config="$data/$cfg.toml" "$@"
}
summary() { python3 "$(dirname "$0")/batch_summary.py" "$1"; }
run() {
  local name=$1 cfg=$2
  shift 2
  if bench "$cfg" --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"; then summary "$OUT/$name.json"; else
    echo "FAIL $name"; tail -5 "$OUT/$name.err"; fails=$((fails + 1)); fi
}
for size in $SIZES; do
  if [ "$size" = 2KiB ]; then
    "$B"/apps/cuzk/cuzk seal --sector-size "$size" --random --out "$W/c1-$size.json" >/dev/null || fails=$((fails + 1))
  else
    "$B"/apps/cuzk/cuzk synth-c1 --sector-size "$size" --out "$W/c1-$size.json" >/dev/null || fails=$((fails + 1))
  fi
  t0=$(date +%s)
  bench cpu preload --circuit "porep:$size" >"$OUT/preload-$size.txt" 2>&1 || { echo "FAIL preload $size"; fails=$((fails + 1)); }
  echo "preload porep:$size (test-only keys + PCE): $(($(date +%s) - t0)) s"
  for be in $BACKENDS; do
    run "porep-$size-$be" "$be" batch --c1 "$W/c1-$size.json" -c 8 -j 2 --warmup 1
  done
done
for c in filecoin-like:2^$K chain:2^$K; do
  tag=${c%%:*}
  bench cpu preload --circuit "$c" >/dev/null 2>&1 || { echo "FAIL preload $c"; fails=$((fails + 1)); }
  for be in $BACKENDS; do
    run "$tag-$K-$be" "$be" batch --circuit "$c" --partitions 4 -c 6 -j 2 --warmup 1
  done
done
rm -rf "$data" "$W"
echo "failures: $fails"
exit $fails
