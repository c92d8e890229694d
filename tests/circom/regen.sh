#!/usr/bin/env bash
# Regenerates the circom fixtures of tests/test_circom.cpp and tests/test_pce.cpp: X.r1cs (circom
# 2.2.3 via the npm package circom2@0.2.23, --prime bls12381, default --O1) and X.wtns
# (snarkjs@0.7.6 wtns calculate on X.input.json) for X = mul3, mix; checks each witness with
# `snarkjs wtns check` and prints `snarkjs r1cs info` (the counts the tests expect).
#
#   bash tests/circom/regen.sh            # tools are installed into a temporary directory
#   TOOLS=/path/with/node_modules bash tests/circom/regen.sh
#
# Needs node >= 15 and npm (tested with node 20.20.2). The outputs are deterministic: rerunning
# reproduces the checked-in bytes (the script says whether they changed).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS="${TOOLS:-}"
WORK="$(mktemp -d)"
CLEANUP=("$WORK")
if [ -z "$TOOLS" ]; then
  TOOLS="$(mktemp -d)"
  CLEANUP+=("$TOOLS")
fi
trap 'rm -rf "${CLEANUP[@]}"' EXIT
if [ ! -f "$TOOLS/node_modules/circom2/cli.js" ] || [ ! -f "$TOOLS/node_modules/snarkjs/build/cli.cjs" ]; then
  (cd "$TOOLS" && npm install --no-audit --no-fund --no-save circom2@0.2.23 snarkjs@0.7.6 >&2)
fi
CIRCOM=(node "$TOOLS/node_modules/circom2/cli.js")
SNARKJS=(node "$TOOLS/node_modules/snarkjs/build/cli.cjs")

for c in mul3 mix; do
  "${CIRCOM[@]}" "$HERE/$c.circom" --r1cs --wasm --prime bls12381 -o "$WORK" >&2
  "${SNARKJS[@]}" wtns calculate "$WORK/${c}_js/$c.wasm" "$HERE/$c.input.json" "$WORK/$c.wtns" >&2
  "${SNARKJS[@]}" wtns check "$WORK/$c.r1cs" "$WORK/$c.wtns" >&2
  "${SNARKJS[@]}" r1cs info "$WORK/$c.r1cs"
done

for f in mul3.r1cs mul3.wtns mix.r1cs mix.wtns; do
  if [ -f "$HERE/$f" ] && cmp -s "$WORK/$f" "$HERE/$f"; then
    echo "$f: unchanged" >&2
  else
    cp "$WORK/$f" "$HERE/$f"
    echo "$f: written" >&2
  fi
done
