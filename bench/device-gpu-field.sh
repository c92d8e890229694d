#!/usr/bin/env bash
# Runs on the device machine from the repository root: builds bench/gpu/field_mul_bench.cu with the
# device's own nvcc (header-only field code, no other dependency), prints the peak rates of DFMA,
# IMAD, IMAD.WIDE and IADD3, checks the field multiplications against a host Montgomery product
# (exit 1 on any mismatch) and prints the throughput of the even/odd-word form (operator*'s
# default), the first-version CIOS (CUZK_GPU_MUL_CIOS=1), a 64-bit-accumulator CIOS and the
# FP64-limb form (gpu/mont_fp64.cuh), alone and mixed with the even/odd form in one thread, for Fr
# and Fq. Where cuobjdump is present, it also prints the SASS instruction mix of one
# multiplication of each form and of the peak loops.
set -euo pipefail
out=${OUT:-/tmp}
nvcc -std=c++20 -O3 -arch=sm_90 -Isrc -o "$out/field_mul_bench" bench/gpu/field_mul_bench.cu
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$out/field_mul_bench" > "$out/field_mul_bench.sass"
  # One kernel per multiplication form: single_mul_kernel<F, Impl> (0 even/odd, 1 CIOS).
  awk '/Function :/ { f = ($3 ~ /single_mul|peak_kernel/) ? $3 : "" }
       f != "" && /\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\// {
         n[f]++; if ($0 ~ /IMAD/) m[f]++; if ($0 ~ /DFMA|DADD|DMUL/) d[f]++; if ($0 ~ /IADD3|LOP3|SHF|LEA/) a[f]++ }
       END { for (k in n) printf "SASS %s: %d instructions, %d IMAD*, %d FP64, %d IADD3/LOP3/SHF/LEA\n", k, n[k], m[k], d[k], a[k] }' \
    "$out/field_mul_bench.sass" | sort
fi
"$out/field_mul_bench"
