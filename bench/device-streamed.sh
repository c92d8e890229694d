#!/usr/bin/env bash
# The streamed device prover (GpuStreamedProver: the key's bases in pinned host memory, streamed to
# the GPU under a device-memory cap) on the device machine, from the repository root, with a GCC
# CUDA build in .devbuild/ (BUILD=1 configures and builds the six programs there first:
# -DCUZK_X86_ADX=ON, CUDA arch 90, several minutes on 16 cores):
#   tests   test_gpu_plan (the plan, no device), test_gpu_streamed (streamed == resident == CPU
#           prover, every arrangement, caps, batches, the pinned key's registry), test_gpu_prover
#           (the resident prover), and what the change touched under it: test_gpu_ntt's H and
#           MatVec cases, test_gpu_msm's window and density cases; the same cases as `ctest -L gpu
#           -R 'GpuProver|GpuZkey|GpuStreamed|StreamedCircuits|GpuH|GpuMatVec|GpuMsm'` and `ctest -R
#           'StreamedPlan|MsmChunks'` in a build made on this machine
#   bench   bench_porep_gpu SIZE (32GiB) with a tiled key: the resident prover when it fits the
#           device, then the streamed one under each cap of CAPS (GiB; "min" = the smallest
#           workable cap; "80x2": two witnesses a pass at 80 GiB; "40b2": a ring of two chunk
#           buffers instead of three), REPS reps each: per-stage times, bytes over PCIe, device
#           memory taken (a run over its cap fails), and whether its sums equal the resident
#           prover's (on an H100, where that does not fit, the first streamed run's)
# `bash bench/device-streamed.sh` runs both; `... tests` or `... bench` one. Logs go to $OUT.
# Expected device time: tests ~4 min, bench ~4 min at 32 GiB (PCE and witness ~15 s, the pinned
# key ~30-60 s, the resident upload ~15 s, each cap a few seconds to build and ~2-4 s a rep).
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
SIZE=${SIZE:-32GiB}
CAPS=${CAPS:-min,12,16,24,40,40b2,80,80b2,80b5,80x2}
REPS=${REPS:-2}
PHASE=${1:-all}
mkdir -p "$OUT"
export CUZK_VECTORS_DIR=$PWD/tests/vectors             # the zkey tests of test_gpu_prover
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"  # shared libraries carried with the binaries
{ date -u; nproc; free -g | head -2; nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader; } |
  tee "$OUT/machine.txt"
fails=0

if [ "${BUILD:-0}" = 1 ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCUZK_X86_ADX=ON -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 &&
    cmake --build "$B" -j "$(nproc)" --target test_gpu_plan test_gpu_streamed test_gpu_prover test_gpu_ntt \
      test_gpu_msm bench_porep_gpu \
      >"$OUT/build.log" 2>&1 || { echo "FAIL build (tail of $OUT/build.log)"; tail -30 "$OUT/build.log"; exit 1; }
  echo "built in $B"
fi

run_test() {  # run_test BINARY [gtest args...]
  local t=$1
  shift
  if "$B/tests/$t" "$@" >"$OUT/$t.log" 2>&1; then
    echo "pass $t ($(grep -c '^\[       OK' "$OUT/$t.log" || true) ok, $(grep -c '^\[  SKIPPED' "$OUT/$t.log" || true) skipped)"
  else
    echo "FAIL $t"
    grep -E "FAILED|Failure|Expected|Which is|error|what\(\)" "$OUT/$t.log" | head -40
    fails=$((fails + 1))
  fi
}

if [ "$PHASE" = all ] || [ "$PHASE" = tests ]; then
  run_test test_gpu_plan
  grep -E "GiB: |smallest workable" "$OUT/test_gpu_plan.log"
  run_test test_gpu_streamed
  run_test test_gpu_prover
  # What the streamed prover changed under the resident one: compute_h built from the H steps,
  # GpuPce::matvec from matvec_one, the MSM's window choice moved to msm_sizing.hpp.
  run_test test_gpu_ntt --gtest_filter='GpuH.*:GpuMatVec.*'
  run_test test_gpu_msm --gtest_filter='GpuMsm.G1WindowWidths:GpuMsm.G1WindowPasses:GpuMsm.G1Density:GpuMsm.G2Density:GpuMsm.EngineReuseAndViews'
fi

if [ "$PHASE" = all ] || [ "$PHASE" = bench ]; then
  timeout 480 "$B/bench/bench_porep_gpu" "$SIZE" --reps "$REPS" --streamed "$CAPS" 2>&1 | tee "$OUT/bench_streamed.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL bench_porep_gpu --streamed"; fails=$((fails + 1)); }
  grep -h '"same_as_reference": false' "$OUT/bench_streamed.txt" && { echo "FAIL streamed sums differ"; fails=$((fails + 1)); }
  grep -h '"within_cap": false' "$OUT/bench_streamed.txt" && { echo "FAIL device memory over the cap"; fails=$((fails + 1)); }
  # One line per streamed run: cap, mode, chunk, buffers, wall and the stages.
  python3 - "$OUT/bench_streamed.txt" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    if d["step"] == "streamed_prover":
        head = f"cap {d['cap_gib']:.2f} GiB {d['mode']} chunk {d['chunk']} x{d['buffers']}: taken {d['device_taken_gib']} GiB"
        print(head)
    elif d["step"] in ("streamed_stage", "device_stage"):
        keys = ["wall_s", "upload_s", "matvec_s", "h_s", "msm_h_s", "msm_l_s", "msm_a_s", "msm_b_g1_s", "msm_b_g2_s"]
        extra = f" h2d {d['h2d_gb']} GB x{d['witnesses']}" if "h2d_gb" in d else ""
        print("  ", d["step"], " ".join(f"{k[:-2]} {d[k]:.3f}" for k in keys if k in d) + extra)
EOF
fi
echo "summary: $fails failures"
exit $fails
