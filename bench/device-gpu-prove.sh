#!/usr/bin/env bash
# Runs on the device machine (H200) from the repository root, with binaries built on the
# development machine carried in .devbuild/:
#   .devbuild/tests/test_gpu_prover   GPU prover == CPU prover (bytes), fallback, auto/multi-GPU
#   .devbuild/tests/test_backend      backend selection and CPU fallback (no device needed)
#   .devbuild/apps/cuzk/cuzk          `cuzk prove --backend gpu` smoke test and `cuzk speed --gpu`
# Then the end-to-end GPU proofs of the built-in circuits with per-stage times (chain 2^16..2^20,
# filecoin-like 2^20, chain 2^22 unless MAX_LOG=20; each row the median of >= 3 proofs after a
# verified warm-up; keys from the TEST-ONLY setup, built on the host first: the 2^22 setup takes
# a minute or two of CPU). Logs go to $OUT.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
MAX_LOG=${MAX_LOG:-22}
mkdir -p "$OUT"
export CUZK_VECTORS_DIR=$PWD/tests/vectors  # the zkey and wtns files of the zkey tests
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader; } | tee "$OUT/machine.txt"
fails=0
for t in test_gpu_prover test_backend; do
  if "$B"/tests/$t >"$OUT/$t.log" 2>&1; then
    echo "pass $t ($(grep -c '^\[       OK' "$OUT/$t.log" || true) cases ok, $(grep -c '^\[  SKIPPED' "$OUT/$t.log" || true) skipped)"
  else
    echo "FAIL $t"
    grep -E "FAILED|Failure|Expected|Which is|error" "$OUT/$t.log" | head -40
    fails=$((fails + 1))
  fi
done

# CLI smoke test: setup, prove on the GPU (two partitions' worth: the same witness twice), verify.
C="$B"/apps/cuzk/cuzk
W=$(mktemp -d)
if "$C" setup --circuit chain:2^16 --params "$W/k.params" --vk "$W/k.vk" -q &&
  "$C" prove --backend gpu -v --circuit chain:2^16 --params "$W/k.params" --proof "$W/p.json" --public "$W/pub.json" &&
  "$C" verify --vk "$W/k.vk" --proof "$W/p.json" --public "$W/pub.json"; then
  echo "pass cli (setup, prove --backend gpu, verify)"
else
  echo "FAIL cli"
  fails=$((fails + 1))
fi
if "$C" prove --backend gpu -v --zkey tests/zkey/mix.zkey --wtns tests/circom/mix.wtns --proof "$W/z.json" \
  --public "$W/zpub.json" &&
  "$C" verify --vk tests/zkey/mix.verification_key.json --proof "$W/z.json" --public "$W/zpub.json"; then
  echo "pass cli zkey (prove --backend gpu --zkey, verify)"
else
  echo "FAIL cli zkey"
  fails=$((fails + 1))
fi
rm -rf "$W"

keys=""
for c in chain_2_16 chain_2_18 chain_2_20 fil_2_20; do
  keys="$keys,gpu_prove_${c}_ms"
  for s in upload_matvec h msm_h msm_l msm_a msm_b_g1 msm_b_g2 finalize; do keys="$keys,gpu_prove_${c}_${s}_ms"; done
  keys="$keys,gpu_prove_${c}_g2cpu_ms"
  case $c in *2_20) keys="$keys,gpu_prove_${c}_tables_ms" ;; esac
done
if [ "$MAX_LOG" -ge 22 ]; then
  keys="$keys,gpu_prove_chain_2_22_ms"
  for s in upload_matvec h msm_h msm_l msm_a msm_b_g1 msm_b_g2 finalize; do keys="$keys,gpu_prove_chain_2_22_${s}_ms"; done
  keys="$keys,gpu_prove_chain_2_22_g2cpu_ms"
fi
"$C" speed --threads "$(nproc)" --only "${keys#,}" 2>&1 | tee "$OUT/speed_gpu.txt" || fails=$((fails + 1))
echo "summary: $fails failures"
exit $fails
