#!/usr/bin/env bash
# Runs on the device machine (16-core host of the H200) from the repository root, with binaries
# built on the development machine carried in .devbuild/ (see BENCHMARKS.md for the call): the PCE
# test binaries, then a full-size synthetic 32 GiB PoRep-shaped PCE (130,278,869 rows, 722 M
# non-zeros): extract, info, verify in both modes, and `cuzk pce bench`. Logs go to $OUT.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
SCALE=${SCALE:-1.0}
DIR=${PCE_DIR:-/tmp/cuzk-pce}
mkdir -p "$OUT" "$DIR"
export CUZK_VECTORS_DIR=$PWD/tests/vectors
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; df -h "$DIR" | tail -1; findmnt -T "$DIR" -o FSTYPE -n; } | tee "$OUT/machine.txt"
fails=0
for t in "$B"/tests/test_pce* "$B"/tests/test_r1cs "$B"/tests/test_circom; do
  if "$t" --gtest_brief=1 >"$OUT/tests.log" 2>&1; then echo "pass $(basename "$t")"; else echo "FAIL $(basename "$t")"; tail -30 "$OUT/tests.log"; fails=$((fails + 1)); fi
done
# MatVec on a circuit built from real gadgets (booleans, UInt32 additions, bit packing, Poseidon-like
# rows; tests/pce_test_circuits.hpp), ~1M constraints.
LD_LIBRARY_PATH="$B/lib" "$B"/bench/bench_pce --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | tee "$OUT/bench_pce.txt"
C="$B"/apps/cuzk/cuzk
TIME=()
[ -x /usr/bin/time ] && TIME=(/usr/bin/time -v)
"${TIME[@]}" "$C" pce extract --synthetic-porep "$SCALE" -o "$DIR/porep.pce" --json 2>"$OUT/extract.time" | tee "$OUT/extract.json"
grep -E "Maximum resident|Elapsed" "$OUT/extract.time"
"$C" pce info "$DIR/porep.pce"
"$C" pce verify "$DIR/porep.pce" || fails=$((fails + 1))
"$C" pce verify --mode read "$DIR/porep.pce" || fails=$((fails + 1))
"$C" pce bench "$DIR/porep.pce" --reps 3 --json | tee "$OUT/bench16.json"
# The same with ordinary (not streaming) stores of the MatVec outputs, for comparison.
CUZK_MATVEC_STREAM=0 "$C" pce bench "$DIR/porep.pce" --reps 3 --json | tee "$OUT/bench16_nostream.json"
"$C" pce bench "$DIR/porep.pce" --reps 1 --threads 4 --json | tee "$OUT/bench4.json"
rm -f "$DIR/porep.pce"
echo "test failures: $fails"
