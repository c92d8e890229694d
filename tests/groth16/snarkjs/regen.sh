#!/usr/bin/env bash
# Regenerates the snarkjs proof fixtures of tests/test_verifier.cpp and cross-checks our JSON
# writers against snarkjs's verifier.
#
# Fixtures (snarkjs 0.7.6 `groth16 prove`, each checked with `snarkjs groth16 verify`):
#   mul3.proof.json, mul3.public.json   tests/zkey/mul3.zkey + tests/circom/mul3.wtns
#   mix.proof.json,  mix.public.json    tests/zkey/mix.zkey  + tests/circom/mix.wtns
#   mix2.proof.json, mix2.public.json   tests/zkey/mix.zkey  + the witness of mix2.input.json
#                                       (tests/circom/mix.circom compiled with circom 2.2.3,
#                                       npm circom2@0.2.23, --prime bls12381; its r1cs must equal
#                                       tests/circom/mix.r1cs)
# snarkjs draws the proof randomizers r, s from crypto.getRandomValues, so every run writes
# different (equally valid) proofs; by default existing proofs are kept and only re-verified,
# FORCE=1 proves again.
#
# Cross-check (when the path of a built test_verifier is given): runs
#   CUZK_SNARKJS_WRITE_DIR=DIR test_verifier --gtest_filter='SnarkjsJson.WriteForSnarkjs'
# which writes, for X = mul3, mix: X.vk.json (our verification_key.json from vk_from_zkey, with
# vk_alphabeta_12 computed by us), X.proof.json and X.public.json (the fixtures parsed and written
# back) and X.rerand.proof.json (a re-randomized proof made by us); each pair must pass
# `snarkjs groth16 verify`, and X.vk.json must equal snarkjs's tests/zkey/X.verification_key.json
# byte for byte.
#
#   (cd tests/vectors && npm ci) && bash tests/groth16/snarkjs/regen.sh [build/tests/test_verifier]
#
# Needs node >= 20.19 (tested with node 20.20.2).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
NM="$ROOT/tests/vectors/node_modules"
TEST_VERIFIER="${1:-}"
if [ ! -f "$NM/circom2/cli.js" ] || [ ! -f "$NM/snarkjs/build/cli.cjs" ]; then
  echo "run 'npm ci' in tests/vectors first" >&2
  exit 1
fi
CIRCOM=(node "$NM/circom2/cli.js")
SNARKJS=(node "$NM/snarkjs/build/cli.cjs")
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ZKEY="$ROOT/tests/zkey"
CIRC="$ROOT/tests/circom"

verify() {  # vk public proof
  if ! "${SNARKJS[@]}" groth16 verify "$1" "$2" "$3" >"$WORK/verify.log" 2>&1; then
    cat "$WORK/verify.log" >&2
    echo "snarkjs groth16 verify FAILED: $1 $2 $3" >&2
    exit 1
  fi
  grep -q "OK" "$WORK/verify.log" || { cat "$WORK/verify.log" >&2; exit 1; }
  echo "snarkjs verify OK: $(basename "$1") $(basename "$2") $(basename "$3")" >&2
}

prove() {  # name circuit wtns
  local name=$1 c=$2 wtns=$3
  if [ "${FORCE:-0}" = 1 ] || [ ! -f "$HERE/$name.proof.json" ] || [ ! -f "$HERE/$name.public.json" ]; then
    "${SNARKJS[@]}" groth16 prove "$ZKEY/$c.zkey" "$wtns" "$HERE/$name.proof.json" "$HERE/$name.public.json" >&2
    echo "$name.proof.json, $name.public.json: written" >&2
  else
    echo "$name.proof.json, $name.public.json: kept (FORCE=1 to prove again)" >&2
  fi
  verify "$ZKEY/$c.verification_key.json" "$HERE/$name.public.json" "$HERE/$name.proof.json"
}

prove mul3 mul3 "$CIRC/mul3.wtns"
prove mix mix "$CIRC/mix.wtns"

if [ "${FORCE:-0}" = 1 ] || [ ! -f "$HERE/mix2.proof.json" ] || [ ! -f "$HERE/mix2.public.json" ]; then
  "${CIRCOM[@]}" "$CIRC/mix.circom" --r1cs --wasm --prime bls12381 -o "$WORK" >&2
  if ! cmp -s "$WORK/mix.r1cs" "$CIRC/mix.r1cs"; then
    echo "mix.r1cs differs from tests/circom/mix.r1cs" >&2
    exit 1
  fi
  "${SNARKJS[@]}" wtns calculate "$WORK/mix_js/mix.wasm" "$HERE/mix2.input.json" "$WORK/mix2.wtns" >&2
  "${SNARKJS[@]}" wtns check "$CIRC/mix.r1cs" "$WORK/mix2.wtns" >&2
  prove mix2 mix "$WORK/mix2.wtns"
else
  prove mix2 mix /dev/null
fi

if [ -n "$TEST_VERIFIER" ]; then
  OUT="$WORK/ours"
  mkdir -p "$OUT"
  CUZK_SNARKJS_WRITE_DIR="$OUT" "$TEST_VERIFIER" --gtest_filter='SnarkjsJson.WriteForSnarkjs' >&2
  for c in mul3 mix; do
    verify "$OUT/$c.vk.json" "$OUT/$c.public.json" "$OUT/$c.proof.json"
    verify "$OUT/$c.vk.json" "$OUT/$c.public.json" "$OUT/$c.rerand.proof.json"
    verify "$ZKEY/$c.verification_key.json" "$OUT/$c.public.json" "$OUT/$c.rerand.proof.json"
    if cmp -s "$OUT/$c.vk.json" "$ZKEY/$c.verification_key.json"; then
      echo "$c.vk.json: identical to snarkjs's verification_key.json" >&2
    else
      echo "$c.vk.json differs from tests/zkey/$c.verification_key.json" >&2
      exit 1
    fi
    cmp "$OUT/$c.proof.json" "$HERE/$c.proof.json"
    cmp "$OUT/$c.public.json" "$HERE/$c.public.json"
  done
  # A tampered proof must be refused by snarkjs too (sanity check of the harness).
  if "${SNARKJS[@]}" groth16 verify "$OUT/mix.vk.json" "$HERE/mix2.public.json" "$OUT/mix.proof.json" >/dev/null 2>&1; then
    echo "snarkjs accepted a proof with the wrong public inputs" >&2
    exit 1
  fi
  echo "cross-check OK" >&2
fi
