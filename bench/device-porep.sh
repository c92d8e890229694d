#!/usr/bin/env bash
# PoRep C2 on the device machine (binaries built on the development machine, carried in
# .devbuild/): per-partition CPU work at 32 GiB (bench_porep: witness, parallel PCE extraction),
# then 2 KiB and 512 MiB end to end — a sealed (2 KiB) or valid synthetic (512 MiB) C1, the
# test-only setup, `cuzk prove --porep` on the CPU and on the GPU backends, `cuzk verify --porep`.
# Logs go to $OUT.   SIZES="2KiB 512MiB" (default), SKIP_32G=1 skips bench_porep.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
SIZES=${SIZES:-"2KiB 512MiB"}
mkdir -p "$OUT"
C="$B"/apps/cuzk/cuzk
{ date -u; nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null; } | tee "$OUT/machine.txt"
fails=0
if [ -z "${SKIP_32G:-}" ]; then
  "$B"/bench/bench_porep 32GiB --threads "$(nproc)" 2>&1 | tee "$OUT/bench_porep_32g.txt" || fails=$((fails + 1))
fi
W=$(mktemp -d)
for size in $SIZES; do
  if [ "$size" = 2KiB ]; then
    "$C" seal --sector-size "$size" --random --out "$W/c1-$size.json" --json >"$OUT/seal-$size.json" || fails=$((fails + 1))
  else
    "$C" synth-c1 --sector-size "$size" --out "$W/c1-$size.json" >"$OUT/synth-$size.txt" || fails=$((fails + 1))
  fi
  t0=$(date +%s%N)
  "$C" setup --circuit porep --sector-size "$size" --params "$W/p-$size.params" --vk "$W/p-$size.vk" -q \
    2>"$OUT/setup-$size.txt" || fails=$((fails + 1))
  echo "setup $size: $(( ($(date +%s%N) - t0) / 1000000 )) ms; $(tail -2 "$OUT/setup-$size.txt" | head -1)" |
    tee -a "$OUT/summary.txt"
  # gpu-g2cpu: the G2 MSM on the CPU, overlapping the GPU's work.
  for be in cpu gpu gpu-g2cpu; do
    extra=""
    [ "$be" = gpu-g2cpu ] && extra="--g2-cpu"
    for rep in 1 2 3; do
      # shellcheck disable=SC2086
      if "$C" prove --porep --backend "${be%-g2cpu}" $extra --c1 "$W/c1-$size.json" --params "$W/p-$size.params" \
        --proof "$W/proof-$size-$be.bin" -v --json >"$OUT/prove-$size-$be-$rep.json" 2>"$OUT/prove-$size-$be-$rep.txt"; then
        echo "prove $size $be #$rep: $(tr -d '\n' <"$OUT/prove-$size-$be-$rep.txt")" | tee -a "$OUT/summary.txt"
      else
        echo "FAIL prove $size $be"; tail -5 "$OUT/prove-$size-$be-$rep.txt"; fails=$((fails + 1)); break
      fi
    done
    "$C" verify --porep --c1 "$W/c1-$size.json" --vk "$W/p-$size.vk" --proof "$W/proof-$size-$be.bin" |
      tee -a "$OUT/summary.txt" || fails=$((fails + 1))
  done
  rm -f "$W/p-$size.params"
done
rm -rf "$W"
echo "summary: $fails failures"
exit $fails
