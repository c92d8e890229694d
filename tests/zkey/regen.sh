#!/usr/bin/env bash
# Regenerates the snarkjs Groth16 fixtures of tests/test_zkey.cpp, for X = mul3, mix
# (tests/circom/X.circom):
#   X.zkey                   snarkjs 0.7.6 `groth16 setup` + one `zkey beacon` contribution
#   X.verification_key.json  `snarkjs zkey export verificationkey X.zkey`
#   X.expect.json            what snarkjs's own reader (zKey.exportJson) returns for X.zkey,
#                            cut down to counts, the VK, IC and chosen A/B1/B2/C/H points and
#                            coefficients (dump.mjs; every point at infinity is included)
# The circuit is compiled with circom 2.2.3 (npm circom2@0.2.23, --prime bls12381, default --O1)
# and the r1cs must equal the checked-in tests/circom/X.r1cs (the test compares the zkey's
# coefficients with it). The powers of tau are a fresh BLS12-381 ceremony of power 10 with one
# beacon contribution, then `prepare phase2`.
#
# Beacons instead of `contribute -e=...`: snarkjs mixes crypto.randomBytes into -e entropy, so
# only beacons make the bytes reproducible; rerunning this script gives the same files (it says
# whether they changed).
#
#   (cd tests/vectors && npm ci) && bash tests/zkey/regen.sh     # ~1 min
#
# Needs node >= 20.19 (tested with node 20.20.2).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NM="$ROOT/tests/vectors/node_modules"
if [ ! -f "$NM/circom2/cli.js" ] || [ ! -f "$NM/snarkjs/build/cli.cjs" ]; then
  echo "run 'npm ci' in tests/vectors first" >&2
  exit 1
fi
CIRCOM=(node "$NM/circom2/cli.js")
SNARKJS=(node "$NM/snarkjs/build/cli.cjs")
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
POWER=10
BEACON1=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20
BEACON2=2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40

"${SNARKJS[@]}" powersoftau new bls12381 "$POWER" "$WORK/pot0.ptau" >&2
"${SNARKJS[@]}" powersoftau beacon "$WORK/pot0.ptau" "$WORK/pot1.ptau" "$BEACON1" 10 -n="cuzk fixture ptau" >&2
"${SNARKJS[@]}" powersoftau prepare phase2 "$WORK/pot1.ptau" "$WORK/pot_final.ptau" >&2

for c in mul3 mix; do
  "${CIRCOM[@]}" "$ROOT/tests/circom/$c.circom" --r1cs --prime bls12381 -o "$WORK" >&2
  if ! cmp -s "$WORK/$c.r1cs" "$ROOT/tests/circom/$c.r1cs"; then
    echo "$c.r1cs differs from tests/circom/$c.r1cs: run tests/circom/regen.sh first" >&2
    exit 1
  fi
  "${SNARKJS[@]}" groth16 setup "$WORK/$c.r1cs" "$WORK/pot_final.ptau" "$WORK/${c}_0000.zkey" >&2
  "${SNARKJS[@]}" zkey beacon "$WORK/${c}_0000.zkey" "$WORK/$c.zkey" "$BEACON2" 10 -n="cuzk fixture zkey" >&2
  "${SNARKJS[@]}" zkey verify "$WORK/$c.r1cs" "$WORK/pot_final.ptau" "$WORK/$c.zkey" >&2
  "${SNARKJS[@]}" zkey export verificationkey "$WORK/$c.zkey" "$WORK/$c.verification_key.json" >&2
  node "$HERE/dump.mjs" "$NM" "$WORK/$c.zkey" "$WORK/$c.expect.json"
done

for c in mul3 mix; do
  for f in "$c.zkey" "$c.verification_key.json" "$c.expect.json"; do
    if [ -f "$HERE/$f" ] && cmp -s "$WORK/$f" "$HERE/$f"; then
      echo "$f: unchanged" >&2
    else
      cp "$WORK/$f" "$HERE/$f"
      echo "$f: written" >&2
    fi
  done
done
