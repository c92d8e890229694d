#!/usr/bin/env bash
# cuzk vs snarkjs 0.7.6 on the same circuit, machine and run: the same .zkey and .wtns proven by
# `snarkjs groth16 prove` and by `cuzk prove --zkey` (wall time of each whole command, best and
# median of RUNS, runs interleaved snarkjs, cuzk, snarkjs, cuzk, ... so load changes hit both),
# both proofs checked by `snarkjs groth16 verify`; one table row per circuit, then cuzk's `-v`
# stage lines.
#
#   bash bench/snarkjs-compare.sh [K...]
#       chain circuits (bench/circom/chain.circom, full-width witness) of about 2^K constraints,
#       compiled with circom2 --prime bls12381, a snarkjs ceremony of power K (deterministic
#       beacons), `groth16 setup`. Default: 12 14.
#   bash bench/snarkjs-compare.sh --ptau P.ptau --circuit C.circom --input C.input.json [--circuit ... --input ...]
#       any bls12381 circom circuits (e.g. ../shared/reference/snarkjs-oracle/circuits/bench.circom,
#       chain17.circom) with a prepared phase-2 ptau of sufficient power (e.g. the oracle's
#       known-tau ptau/bls12381_p17_known.ptau). Artifacts go to $WORK/<name>-bls12381/ with the
#       snarkjs-oracle's layout (<name>.r1cs, <name>_js/, <name>.wtns, <name>.zkey,
#       verification_key.json), each built only when missing, so WORK=<oracle>/build reuses
#       what oracle.sh made (then --ptau is not needed).
#   K values and --circuit pairs can be mixed. Env: CUZK (binary), WORK (artifact dir, default
#   /tmp/cuzk-snarkjs-compare), SNARKJS_NM (node_modules with snarkjs and circom2, default
#   tests/vectors/node_modules: needs `npm ci` there), RUNS (default 3).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CUZK=${CUZK:-$ROOT/build/apps/cuzk/cuzk}
NM=${SNARKJS_NM:-$ROOT/tests/vectors/node_modules}
SNARKJS=(node --max-old-space-size=16000 "$NM/snarkjs/build/cli.cjs")
CIRCOM=(node --max-old-space-size=16000 "$NM/circom2/cli.js")
WORK=${WORK:-/tmp/cuzk-snarkjs-compare}
RUNS=${RUNS:-3}

usage() { sed -n 2,21p "$0"; exit "${1:-2}"; }
KS=(); CIRCUITS=(); INPUTS=(); PTAU=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage 0 ;;
    --ptau) PTAU="$2"; shift 2 ;;
    --circuit) CIRCUITS+=("$2"); shift 2 ;;
    --input) INPUTS+=("$2"); shift 2 ;;
    [0-9]*) KS+=("$1"); shift ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
[ "${#CIRCUITS[@]}" -eq "${#INPUTS[@]}" ] || { echo "each --circuit needs one --input" >&2; exit 2; }
if [ "${#KS[@]}" -eq 0 ] && [ "${#CIRCUITS[@]}" -eq 0 ]; then KS=(12 14); fi
[ -x "$CUZK" ] || { echo "no cuzk binary at $CUZK (set CUZK=...)" >&2; exit 2; }
[ -f "$NM/snarkjs/build/cli.cjs" ] || { echo "no snarkjs in $NM (npm ci in tests/vectors, or SNARKJS_NM=...)" >&2; exit 2; }
mkdir -p "$WORK"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
load1() { cut -d' ' -f1 /proc/loadavg; }
# timed LOG CMD... : run CMD (output to LOG), echo its wall milliseconds; a failure is fatal.
timed() {
  local log="$1"; shift
  local t0 t1
  t0=$(now_ms)
  "$@" >"$log" 2>&1 || { echo "FAILED: $* (see $log)" >&2; tail -5 "$log" >&2; exit 1; }
  t1=$(now_ms)
  echo $((t1 - t0))
}
verify() {  # verify VK PUBLIC PROOF -> ok|REJECTED
  local out
  out=$("${SNARKJS[@]}" groth16 verify "$1" "$2" "$3" 2>&1) || true
  case "$out" in *"OK!"*) echo ok ;; *) echo REJECTED ;; esac
}

ROWS=(); STAGES=()
FMT="%-10s %11s %11s %11s %7s %11s %11s %7s %-15s %s\n"
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
# compare LABEL DIR ZKEY WTNS VK R1CS : interleaved best-of-RUNS, verify both proofs, one -v run.
compare() {
  local label="$1" d="$2" zkey="$3" wtns="$4" vk="$5" r1cs="$6"
  local cons
  cons=$("${SNARKJS[@]}" r1cs info "$r1cs" | grep -o "# of Constraints: [0-9]*" | grep -o "[0-9]*$")
  local la lb sb="" cb="" s c i sall="" call=""
  la=$(load1)
  for i in $(seq 1 "$RUNS"); do
    s=$(timed "$d/log.snarkjs_prove.txt" "${SNARKJS[@]}" groth16 prove "$zkey" "$wtns" "$d/s.proof.json" "$d/s.public.json")
    c=$(timed "$d/log.cuzk_prove.txt" "$CUZK" prove --backend cpu --zkey "$zkey" --wtns "$wtns" --proof "$d/c.proof.json" --public "$d/c.public.json")
    sall+="$s "; call+="$c "
    if [ -z "$sb" ] || [ "$s" -lt "$sb" ]; then sb=$s; fi
    if [ -z "$cb" ] || [ "$c" -lt "$cb" ]; then cb=$c; fi
  done
  lb=$(load1)
  echo "$label: snarkjs runs (ms): $sall| cuzk runs (ms): $call| load $la -> $lb" >&2
  local vs vc
  vs=$(verify "$vk" "$d/s.public.json" "$d/s.proof.json")
  vc=$(verify "$vk" "$d/c.public.json" "$d/c.proof.json")
  "$CUZK" prove --backend cpu --zkey "$zkey" --wtns "$wtns" --proof "$d/cv.proof.json" --public "$d/cv.public.json" -v >"$d/log.cuzk_prove_v.txt" 2>&1
  STAGES+=("$label (load $(load1)):" "$(sed 's/^/    /' "$d/log.cuzk_prove_v.txt")")
  local sm cm
  # shellcheck disable=SC2086
  sm=$(median $sall)
  # shellcheck disable=SC2086
  cm=$(median $call)
  ROWS+=("$(printf "$FMT" "$label" "$cons" "$sb" "$cb" "$(awk "BEGIN{printf \"%.1fx\", $sb/$cb}")" "$sm" "$cm" \
    "$(awk "BEGIN{printf \"%.1fx\", $sm/$cm}")" "$vs/$vc" "$la -> $lb")")
  printf '%s\n' "${ROWS[-1]}"
}

printf "$FMT" circuit constraints snarkjs_ms cuzk_zkey_ms ratio snarkjs_med cuzk_med ratio_med verify_s/c \
  "load1 (start -> end)"

for K in "${KS[@]}"; do
  D="$WORK/k$K"
  mkdir -p "$D"
  steps=$(((1 << K) - 8))
  sed "s/STEPS/$steps/" "$ROOT/bench/circom/chain.circom" >"$D/chain.circom"
  if [ ! -f "$D/chain.zkey" ]; then
    "${CIRCOM[@]}" "$D/chain.circom" --r1cs --wasm --prime bls12381 -o "$D" >/dev/null
    echo '{"x": "987654321"}' >"$D/input.json"
    "${SNARKJS[@]}" wtns calculate "$D/chain_js/chain.wasm" "$D/input.json" "$D/chain.wtns" >/dev/null
    P=$K
    "${SNARKJS[@]}" powersoftau new bls12381 "$P" "$D/p0.ptau" >/dev/null
    "${SNARKJS[@]}" powersoftau beacon "$D/p0.ptau" "$D/p1.ptau" 0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20 10 >/dev/null
    "${SNARKJS[@]}" powersoftau prepare phase2 "$D/p1.ptau" "$D/final.ptau" >/dev/null
    "${SNARKJS[@]}" groth16 setup "$D/chain.r1cs" "$D/final.ptau" "$D/c0.zkey" >/dev/null
    "${SNARKJS[@]}" zkey beacon "$D/c0.zkey" "$D/chain.zkey" 2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40 10 >/dev/null
    "${SNARKJS[@]}" zkey export verificationkey "$D/chain.zkey" "$D/vk.json" >/dev/null
  fi
  compare "chain-k$K" "$D" "$D/chain.zkey" "$D/chain.wtns" "$D/vk.json" "$D/chain.r1cs"
done

for idx in "${!CIRCUITS[@]}"; do
  C="${CIRCUITS[$idx]}"; IN="${INPUTS[$idx]}"
  [ -f "$C" ] || { echo "no circuit $C" >&2; exit 2; }
  [ -f "$IN" ] || { echo "no input $IN" >&2; exit 2; }
  NAME="$(basename "$C" .circom)"
  D="$WORK/$NAME-bls12381"
  mkdir -p "$D"
  R1CS="$D/$NAME.r1cs"; WASM="$D/${NAME}_js/$NAME.wasm"; WTNS="$D/$NAME.wtns"
  ZKEY="$D/$NAME.zkey"; VK="$D/verification_key.json"
  if [ ! -f "$R1CS" ] || [ ! -f "$WASM" ]; then
    echo ">>> $NAME: circom2 --prime bls12381" >&2
    "${CIRCOM[@]}" "$C" --r1cs --wasm --prime bls12381 -o "$D" >"$D/log.compile.txt" 2>&1
  fi
  if [ ! -f "$WTNS" ]; then
    echo ">>> $NAME: wtns calculate" >&2
    "${SNARKJS[@]}" wtns calculate "$WASM" "$IN" "$WTNS" >/dev/null
  fi
  if [ ! -f "$ZKEY" ]; then
    [ -n "$PTAU" ] && [ -f "$PTAU" ] || { echo "$NAME: no $ZKEY yet and no --ptau FILE to make it" >&2; exit 2; }
    echo ">>> $NAME: groth16 setup with $PTAU" >&2
    "${SNARKJS[@]}" groth16 setup "$R1CS" "$PTAU" "$D/${NAME}_0000.zkey" >"$D/log.groth16_setup.txt" 2>&1
    "${SNARKJS[@]}" zkey beacon "$D/${NAME}_0000.zkey" "$ZKEY" \
      2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40 10 -n=compare-beacon >/dev/null
  fi
  if [ ! -f "$VK" ]; then
    "${SNARKJS[@]}" zkey export verificationkey "$ZKEY" "$VK" >/dev/null
  fi
  compare "$NAME" "$D" "$ZKEY" "$WTNS" "$VK" "$R1CS"
done

echo
echo "cuzk prove --zkey -v:"
printf '%s\n' "${STAGES[@]}"
