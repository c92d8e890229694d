#!/usr/bin/env bash
# Runs on the device machine (16-core host of the H200) from the repository root, with binaries
# built on the development machine carried in .devbuild/ (see BENCHMARKS.md for the call):
# the CPU test binaries, selfcheck, then `cuzk speed` on 16 threads (with the large sizes) and on
# one thread. Logs go to $OUT.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export CUZK_VECTORS_DIR=$PWD/tests/vectors
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; grep -o -w -E "adx|bmi2|avx512ifma" /proc/cpuinfo | sort -u | tr '\n' ' '; echo; } | tee "$OUT/machine.txt"
fails=0
for t in "$B"/tests/test_*; do
  if "$t" --gtest_brief=1 >"$OUT/tests.log" 2>&1; then echo "pass $(basename "$t")"; else echo "FAIL $(basename "$t")"; cat "$OUT/tests.log"; fails=$((fails + 1)); fi
done
"$B"/apps/cuzk/cuzk selfcheck || fails=$((fails + 1))
"$B"/apps/cuzk/cuzk speed --full --threads 16 --json | tee "$OUT/speed16.json"
"$B"/apps/cuzk/cuzk speed --threads 1 --only fr_mul_ns,fq_mul_ns,g1_add_ns,g2_add_ns,pairing_us,ntt_2_16_ms,ntt_2_20_ms,g1_msm_2_16_ms,g2_msm_2_16_ms --json | tee "$OUT/speed1.json"
# The same MSM rows with the AVX-512 IFMA bucket path switched off, for comparison.
CUZK_MSM_SIMD=0 "$B"/apps/cuzk/cuzk speed --threads 16 --only g1_msm_2_20_ms,g1_msm_2_22_ms,g2_msm_2_18_ms --full --json | tee "$OUT/speed16_scalar.json"
echo "test failures: $fails"
