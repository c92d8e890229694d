#!/usr/bin/env bash
# Runs on the device machine (16-core host of the H200) from the repository root, with binaries
# built on the development machine carried in .devbuild/ (see BENCHMARKS.md): Groth16 setup and
# proof times per stage for the built-in circuits at 2^16, 2^18 and 2^20 constraints, on 16 threads
# (and 2^20 on 4). Logs go to $OUT.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
DIR=${G16_DIR:-/tmp/cuzk-g16}
SIZES=${SIZES:-"16 18 20"}
mkdir -p "$OUT" "$DIR"
export CUZK_VECTORS_DIR=$PWD/tests/vectors
C="$B"/apps/cuzk/cuzk
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; } | tee "$OUT/machine.txt"
fails=0
for t in "$B"/tests/test_groth16 "$B"/tests/test_groth16_io; do
  [ -x "$t" ] || continue
  if "$t" --gtest_brief=1 >"$OUT/tests.log" 2>&1; then echo "pass $(basename "$t")"; else echo "FAIL $(basename "$t")"; tail -30 "$OUT/tests.log"; fails=$((fails + 1)); fi
done
for k in $SIZES; do
  for kind in filecoin-like chain; do
    c="$kind:2^$k"
    s0=$(date +%s%N)
    "$C" setup --circuit "$c" --params "$DIR/c.params" --vk "$DIR/c.vk" -q 2>&1 | head -1
    echo "setup $c wall $((($(date +%s%N) - s0) / 1000000)) ms"
    for rep in 1 2 3; do
      "$C" prove --backend cpu --params "$DIR/c.params" --circuit "$c" --proof "$DIR/p.bin" --public "$DIR/pub.json" -v 2>&1 | sed "s/^/$c rep $rep: /"
    done
    "$C" verify --vk "$DIR/c.vk" --proof "$DIR/p.bin" --public "$DIR/pub.json" || fails=$((fails + 1))
    if [ "$k" = 20 ]; then
      "$C" prove --backend cpu --params "$DIR/c.params" --circuit "$c" --proof "$DIR/p.bin" -v --threads 4 2>&1 | sed "s/^/$c 4 threads: /" || true
    fi
  done
done
rm -rf "$DIR"
echo "failures: $fails"
