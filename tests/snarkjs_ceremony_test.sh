#!/usr/bin/env bash
# Issue W1.3 test (a), live: a BLS12-381 circom circuit of a few thousand constraints
# (bench/circom/chain.circom with 2040 steps, a 2^11 domain) compiled by circom2 --prime bls12381;
# phase 1 is the snarkjs powers of tau kept in tests/ptau (made by tests/ptau/regen.sh, its digest
# checked here), as circom users start from a published ceremony; phase 2 is run here every time:
# snarkjs `groth16 setup` and `zkey contribute` with random entropy (a fresh key every run).
# `cuzk prove --zkey` must be accepted by `snarkjs groth16 verify` and by `cuzk verify`, and a
# proof for another witness must be rejected for these inputs.
# Usage: snarkjs_ceremony_test.sh PATH/TO/cuzk REPO_ROOT
set -euo pipefail
cuzk=$(realpath "$1")
root=$2
nm="$root/tests/vectors/node_modules"
[ -f "$nm/snarkjs/build/cli.cjs" ] || { echo "FAIL: snarkjs missing: run 'npm ci' in $root/tests/vectors"; exit 1; }
snarkjs() { node "$nm/snarkjs/build/cli.cjs" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
sed "s/STEPS/2040/" "$root/bench/circom/chain.circom" >chain.circom
node "$nm/circom2/cli.js" chain.circom --r1cs --wasm --prime bls12381 -o . >/dev/null
echo '{"x": "424242"}' >input.json
snarkjs wtns calculate chain_js/chain.wasm input.json chain.wtns >/dev/null
(cd "$root/tests/ptau" && sha256sum --quiet -c bls12381_11.ptau.sha256) ||
  { echo "FAIL: tests/ptau/bls12381_11.ptau differs from its digest (rerun tests/ptau/regen.sh)"; exit 1; }
snarkjs groth16 setup chain.r1cs "$root/tests/ptau/bls12381_11.ptau" c0.zkey >/dev/null
snarkjs zkey contribute c0.zkey chain.zkey --name=cuzk-test -e="$RANDOM$RANDOM" >/dev/null
snarkjs zkey export verificationkey chain.zkey vk.json >/dev/null
cons=$(snarkjs r1cs info chain.r1cs | grep -o "# of Constraints: [0-9]*" | grep -o "[0-9]*$")
[ "$cons" -ge 2000 ] || { echo "FAIL: only $cons constraints"; exit 1; }
"$cuzk" prove --zkey chain.zkey --wtns chain.wtns --proof proof.json --public public.json
snarkjs groth16 verify vk.json public.json proof.json >/dev/null || { echo "FAIL: snarkjs rejects our proof"; exit 1; }
"$cuzk" verify --vk vk.json --proof proof.json --public public.json >/dev/null
# The same proof against another public input: both verifiers must say no.
sed 's/"424242"/"424243"/' public.json >bad.json
if snarkjs groth16 verify vk.json bad.json proof.json >/dev/null 2>&1; then echo "FAIL: snarkjs accepts a wrong input"; exit 1; fi
set +e
"$cuzk" verify --vk vk.json --proof proof.json --public bad.json >/dev/null
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "FAIL: cuzk verify gave $rc for a wrong input"; exit 1; }
echo "snarkjs ceremony test passed ($cons constraints)"
