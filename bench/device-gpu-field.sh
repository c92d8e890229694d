#!/usr/bin/env bash
# Runs on the device machine from the repository root: builds bench/gpu/field_mul_bench.cu with the
# device's own nvcc (header-only field code, no other dependency) and prints the multiplication
# throughput of both CIOS variants for Fr and Fq.
set -euo pipefail
out=${OUT:-/tmp}
nvcc -std=c++20 -O3 -arch=sm_90 -Isrc -o "$out/field_mul_bench" bench/gpu/field_mul_bench.cu
"$out/field_mul_bench"
