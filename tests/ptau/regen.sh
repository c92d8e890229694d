#!/usr/bin/env bash
# Regenerates tests/ptau/bls12381_11.ptau, the phase-1 powers of tau (BLS12-381, power 11: circuits
# of up to 2,048 constraints + inputs) that tests/snarkjs_ceremony_test.sh starts from, as circom
# users start from a published ceremony file:
#   snarkjs 0.7.6 `powersoftau new bls12381 11`, one `powersoftau beacon` contribution,
#   `powersoftau prepare phase2` (the Lagrange bases: 80 s of the 2-core CI machine, which is why
#   the file is kept in the repository instead of being made by every CI run).
# A beacon, not `contribute -e`, so that rerunning gives the same bytes (it says whether they
# changed). The circuit-specific phase 2 (groth16 setup + zkey contribute with fresh entropy) is
# still run by the test every time.
#
#   (cd tests/vectors && npm ci) && bash tests/ptau/regen.sh     # ~2 min
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NM="$HERE/../vectors/node_modules"
[ -f "$NM/snarkjs/build/cli.cjs" ] || { echo "run 'npm ci' in tests/vectors first" >&2; exit 1; }
SNARKJS=(node "$NM/snarkjs/build/cli.cjs")
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
BEACON=4142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f60

"${SNARKJS[@]}" powersoftau new bls12381 11 "$WORK/p0.ptau" >&2
"${SNARKJS[@]}" powersoftau beacon "$WORK/p0.ptau" "$WORK/p1.ptau" "$BEACON" 10 -n="cuzk test ptau" >&2
"${SNARKJS[@]}" powersoftau prepare phase2 "$WORK/p1.ptau" "$WORK/final.ptau" >&2

out="$HERE/bls12381_11.ptau"
if [ -f "$out" ] && cmp -s "$out" "$WORK/final.ptau"; then
  echo "bls12381_11.ptau: unchanged"
else
  mv "$WORK/final.ptau" "$out"
  echo "bls12381_11.ptau: written (changed)"
fi
(cd "$HERE" && sha256sum bls12381_11.ptau >bls12381_11.ptau.sha256)
