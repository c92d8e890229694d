#!/usr/bin/env bash
# cuzk vs snarkjs 0.7.6 on the same circuit, machine and run: a chain circuit (bench/circom/
# chain.circom, full-width witness) of about 2^K constraints, compiled with circom2 --prime
# bls12381; a snarkjs ceremony of power K (deterministic beacons), `groth16 setup`; then the
# same .zkey and .wtns proven by `snarkjs groth16 prove` and by `cuzk prove --zkey` (wall time of
# each whole command, best of 3), both proofs checked by `snarkjs groth16 verify`.
#   bash bench/snarkjs-compare.sh [K...]      (default: 12 14; needs `npm ci` in tests/vectors)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CUZK=${CUZK:-$ROOT/build/apps/cuzk/cuzk}
NM="$ROOT/tests/vectors/node_modules"
SNARKJS=(node --max-old-space-size=16000 "$NM/snarkjs/build/cli.cjs")
CIRCOM=(node "$NM/circom2/cli.js")
WORK=${WORK:-/tmp/cuzk-snarkjs-compare}
mkdir -p "$WORK"
best3() {  # best3 CMD... -> best wall seconds of 3 runs
  local best=""
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    local s=$(((t1 - t0) / 1000000))
    if [ -z "$best" ] || [ "$s" -lt "$best" ]; then best=$s; fi
  done
  echo "$best"
}
printf "%-6s %-12s %-14s %-14s %-8s\n" K constraints snarkjs_ms cuzk_zkey_ms speedup
for K in ${@:-12 14}; do
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
  cons=$("${SNARKJS[@]}" r1cs info "$D/chain.r1cs" | grep -o "# of Constraints: [0-9]*" | grep -o "[0-9]*$")
  s_ms=$(best3 "${SNARKJS[@]}" groth16 prove "$D/chain.zkey" "$D/chain.wtns" "$D/s.proof.json" "$D/s.public.json")
  c_ms=$(best3 "$CUZK" prove --zkey "$D/chain.zkey" --wtns "$D/chain.wtns" --proof "$D/c.proof.json" --public "$D/c.public.json")
  "${SNARKJS[@]}" groth16 verify "$D/vk.json" "$D/s.public.json" "$D/s.proof.json" >/dev/null
  "${SNARKJS[@]}" groth16 verify "$D/vk.json" "$D/c.public.json" "$D/c.proof.json" >/dev/null
  printf "%-6s %-12s %-14s %-14s %-8s\n" "$K" "$cons" "$s_ms" "$c_ms" "$(awk "BEGIN{printf \"%.1fx\", $s_ms/$c_ms}")"
done
