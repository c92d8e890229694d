#!/usr/bin/env bash
# Runs on the device machine (H200) from the repository root, with binaries built on the
# development machine carried in .devbuild/ (tests in .devbuild/tests, bench programs in
# .devbuild/bench): the GPU MSM tests (GPU == CPU ec::msm), then the MSM benchmark
# (G1 2^20..2^26 and 2^27, G2 2^20..2^24). Logs go to $OUT. Expected device time: a few minutes
# (the tests' CPU references and the CPU base generation dominate).
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader; } | tee "$OUT/machine.txt"
fails=0
if "$B"/tests/test_gpu_msm >"$OUT/test_gpu_msm.log" 2>&1; then
  echo "pass test_gpu_msm ($(grep -c '^\[       OK' "$OUT/test_gpu_msm.log" || true) cases ok)"
else
  echo "FAIL test_gpu_msm"
  grep -E "FAILED|Failure|!=|error" "$OUT/test_gpu_msm.log" | head -40
  fails=$((fails + 1))
fi
"$B"/bench/bench_gpu_msm "${MSM_MAX_LOG_G1:-27}" "${MSM_MAX_LOG_G2:-24}" "${MSM_RUNS:-5}" 2>&1 | tee "$OUT/bench_gpu_msm.txt"
echo "summary: $fails failing test binaries"
exit $fails
