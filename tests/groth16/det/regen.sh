#!/usr/bin/env bash
# Regenerates the deterministic snarkjs proofs of tests/test_prover_zkey.cpp: X.det.json for
# X = mul3, mix, from tests/zkey/X.zkey, tests/circom/X.wtns and tests/zkey/X.verification_key.json.
# prove_det.mjs runs snarkjs 0.7.6's groth16.prove with the blinding scalars r, s fixed (below),
# checks the proof with snarkjs's verifier and records r, s, the proof, the public signals and the
# H scalars (recomputed independently with BigInt FFTs).
#
#   (cd tests/vectors && npm ci) && bash tests/groth16/det/regen.sh     # a few seconds
#
# Deterministic: rerunning reproduces the checked-in files (the script says whether they changed).
# Needs node >= 20 (tested with node 20.20.2).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
NM="$ROOT/tests/vectors/node_modules"
if [ ! -f "$NM/snarkjs/build/main.cjs" ] || [ ! -f "$NM/ffjavascript/build/main.cjs" ]; then
  echo "run 'npm ci' in tests/vectors first" >&2
  exit 1
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Fixed blinding scalars (decimal, < r).
R_mul3=12345678901234567890123456789012345678901234567890123456789012345678
S_mul3=98765432109876543210987654321098765432109876543210987654321098765432
R_mix=31415926535897932384626433832795028841971693993751058209749445923078
S_mix=27182818284590452353602874713526624977572470936999595749669676277240

for c in mul3 mix; do
  rv="R_$c"
  sv="S_$c"
  node "$HERE/prove_det.mjs" "$NM" "$ROOT/tests/zkey/$c.zkey" "$ROOT/tests/circom/$c.wtns" \
    "$ROOT/tests/zkey/$c.verification_key.json" "${!rv}" "${!sv}" "$WORK/$c.det.json"
  f="$c.det.json"
  if [ -f "$HERE/$f" ] && cmp -s "$WORK/$f" "$HERE/$f"; then
    echo "$f: unchanged" >&2
  else
    cp "$WORK/$f" "$HERE/$f"
    echo "$f: written" >&2
  fi
done
