#!/usr/bin/env bash
# Runs on the device machine from the repository root, binaries in .devbuild/ (tests in
# .devbuild/tests/, bench programs in .devbuild/bench/): the GPU NTT/H/MatVec tests, then the
# benchmark (NTT 2^20..2^27, H at 2^20 and 2^27 in both conventions, MatVec of filecoin-like:2^20
# with the witness upload). Logs go to $OUT. MAX_LOG=24 shortens the benchmark.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/gpu.txt"
fails=0
if "$B"/tests/test_gpu_ntt --gtest_brief=1 >"$OUT/test_gpu_ntt.log" 2>&1; then
  echo "pass test_gpu_ntt"
else
  echo "FAIL test_gpu_ntt"
  grep -E "Failure|mismatch|FAILED|error" "$OUT/test_gpu_ntt.log" | head -40
  fails=$((fails + 1))
fi
grep -E "tests? from .* ran|PASSED|SKIPPED" "$OUT/test_gpu_ntt.log" | tail -3
"$B"/bench/bench_gpu_ntt --max-log "${MAX_LOG:-27}" --reps "${REPS:-5}" 2>&1 | tee "$OUT/bench_gpu_ntt.txt" || fails=$((fails + 1))
echo "failures: $fails"
exit "$fails"
