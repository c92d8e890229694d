#!/usr/bin/env bash
# End-to-end Groth16 through the CLI, judged by snarkjs 0.7.6 (tests/vectors/node_modules, installed
# by `npm ci` in tests/vectors):
#   (a) `cuzk prove --zkey` on snarkjs's own keys (tests/zkey) -> `snarkjs groth16 verify` accepts;
#   (b) `cuzk setup` + `cuzk prove --params` (bellperson convention) -> our verifier and, through
#       `cuzk export-vk`, `snarkjs groth16 verify` accept; 192-byte and JSON proofs;
#   (c) a tampered proof, a wrong public input and another circuit's key are rejected by both;
#   (e) malformed params/zkey/wtns give exit code 1 (prove) or 2 (verify) and a message;
#   (f) a witness that does not satisfy the circuit: both provers exit 1, name it, write no proof;
#   (g) `cuzk setup` interrupted by SIGINT: exit 130, no file left.
# Usage: groth16_cli_test.sh PATH/TO/cuzk REPO_ROOT
set -u
cuzk=$1
root=$2
snarkjs_cli="$root/tests/vectors/node_modules/snarkjs/build/cli.cjs"
if [ ! -f "$snarkjs_cli" ]; then
  echo "FAIL: snarkjs missing: run 'npm ci' in $root/tests/vectors"
  exit 1
fi
snarkjs() { node "$snarkjs_cli" "$@" >"$tmp/snarkjs.log" 2>&1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}
expect_rc() {  # expect_rc WANT CMD...
  local want=$1
  shift
  "$@" >"$tmp/out.log" 2>&1
  local rc=$?
  [ "$rc" -eq "$want" ] || { bad "'$*' exited $rc, expected $want"; cat "$tmp/out.log"; }
}
c=$root/tests/circom
z=$root/tests/zkey

# (a) snarkjs keys, our prover, snarkjs's verifier.
for x in mul3 mix; do
  expect_rc 0 "$cuzk" prove --zkey "$z/$x.zkey" --wtns "$c/$x.wtns" --proof "$tmp/$x.proof.json" --public "$tmp/$x.public.json"
  snarkjs groth16 verify "$z/$x.verification_key.json" "$tmp/$x.public.json" "$tmp/$x.proof.json" ||
    bad "snarkjs rejects our zkey proof for $x: $(cat "$tmp/snarkjs.log")"
  expect_rc 0 "$cuzk" verify --vk "$z/$x.verification_key.json" --proof "$tmp/$x.proof.json" --public "$tmp/$x.public.json"
done

# (b) our setup and prover, both verifiers.
expect_rc 0 "$cuzk" setup --r1cs "$c/mix.r1cs" --params "$tmp/mix.params" --vk "$tmp/mix.vk" --seed 5 -q
expect_rc 0 "$cuzk" export-vk --vk "$tmp/mix.vk" --json "$tmp/mix.vk.json"
expect_rc 0 "$cuzk" prove --params "$tmp/mix.params" --r1cs "$c/mix.r1cs" --wtns "$c/mix.wtns" --proof "$tmp/p.bin" \
  --public "$tmp/pub.json"
[ "$(stat -c %s "$tmp/p.bin")" -eq 192 ] || bad "bellperson proof is not 192 bytes"
expect_rc 0 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/p.bin" --public "$tmp/pub.json"
expect_rc 0 "$cuzk" pce extract --r1cs "$c/mix.r1cs" -o "$tmp/mix.pce" -q
expect_rc 0 "$cuzk" prove --params "$tmp/mix.params" --pce "$tmp/mix.pce" --wtns "$c/mix.wtns" --proof "$tmp/p.json"
snarkjs groth16 verify "$tmp/mix.vk.json" "$tmp/pub.json" "$tmp/p.json" ||
  bad "snarkjs rejects our bellperson-convention proof: $(cat "$tmp/snarkjs.log")"
expect_rc 0 "$cuzk" verify --vk "$tmp/mix.vk.json" --proof "$tmp/p.json" --public "$tmp/pub.json"
expect_rc 0 "$cuzk" setup --circuit chain:2^8 --params "$tmp/chain.params" --vk "$tmp/chain.vk" -q
expect_rc 0 "$cuzk" prove --params "$tmp/chain.params" --circuit chain:2^8 --proof "$tmp/chain.bin" --public "$tmp/chain.pub.json"
expect_rc 0 "$cuzk" verify --vk "$tmp/chain.vk" --proof "$tmp/chain.bin" --public "$tmp/chain.pub.json"

# Several proofs in one call (partitions): two witnesses of mix, 384 bytes, batch-verified.
node "$root/tests/vectors/node_modules/circom2/cli.js" "$c/mix.circom" --wasm --prime bls12381 -o "$tmp" >/dev/null 2>&1 ||
  bad "circom2 failed"
snarkjs wtns calculate "$tmp/mix_js/mix.wasm" "$root/tests/groth16/snarkjs/mix2.input.json" "$tmp/mix2.wtns" ||
  bad "snarkjs wtns calculate failed: $(cat "$tmp/snarkjs.log")"
expect_rc 0 "$cuzk" prove --params "$tmp/mix.params" --pce "$tmp/mix.pce" --wtns "$c/mix.wtns" --wtns "$tmp/mix2.wtns" \
  --proof "$tmp/two.bin" --public "$tmp/two.json"
[ "$(stat -c %s "$tmp/two.bin")" -eq 384 ] || bad "two proofs are not 384 bytes"
expect_rc 0 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/two.bin" --public "$tmp/two.json"
node -e '
  const fs = require("fs");
  const p = JSON.parse(fs.readFileSync(process.argv[1]));
  [p[0], p[1]] = [p[1], p[0]];
  fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$tmp/two.json" "$tmp/two-swapped.json"
expect_rc 1 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/two.bin" --public "$tmp/two-swapped.json"
expect_rc 2 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/two.bin" --public "$tmp/pub.json"
expect_rc 2 "$cuzk" prove --params "$tmp/mix.params" --pce "$tmp/mix.pce" --wtns "$c/mix.wtns" --wtns "$tmp/mix2.wtns" \
  --proof "$tmp/two.json"

# (c) rejections, by both verifiers.
sed 's/12297829382473034410/12297829382473034411/' "$tmp/pub.json" >"$tmp/badpub.json"
cmp -s "$tmp/pub.json" "$tmp/badpub.json" && bad "test setup: public input not changed"
expect_rc 1 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/p.bin" --public "$tmp/badpub.json"
snarkjs groth16 verify "$tmp/mix.vk.json" "$tmp/badpub.json" "$tmp/p.json" && bad "snarkjs accepts a wrong public input"
# A tampered proof: pi_a of another valid proof (the zkey proof's) in ours.
node -e '
  const fs = require("fs");
  const p = JSON.parse(fs.readFileSync(process.argv[1])), q = JSON.parse(fs.readFileSync(process.argv[2]));
  p.pi_a = q.pi_a;
  fs.writeFileSync(process.argv[3], JSON.stringify(p));' "$tmp/p.json" "$tmp/mix.proof.json" "$tmp/tampered.json"
expect_rc 1 "$cuzk" verify --vk "$tmp/mix.vk.json" --proof "$tmp/tampered.json" --public "$tmp/pub.json"
snarkjs groth16 verify "$tmp/mix.vk.json" "$tmp/pub.json" "$tmp/tampered.json" && bad "snarkjs accepts a tampered proof"
# Another circuit's key (snarkjs's mix key for our proof: same shape, other setup).
expect_rc 1 "$cuzk" verify --vk "$z/mix.verification_key.json" --proof "$tmp/p.json" --public "$tmp/pub.json"
snarkjs groth16 verify "$z/mix.verification_key.json" "$tmp/pub.json" "$tmp/p.json" && bad "snarkjs accepts a proof under another key"
# Wrong number of public inputs: an error (2), not "invalid".
expect_rc 2 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/p.bin" --public "$tmp/mul3.public.json"

# (e) malformed inputs.
head -c 1000 "$tmp/mix.params" >"$tmp/short.params"
expect_rc 1 "$cuzk" prove --params "$tmp/short.params" --r1cs "$c/mix.r1cs" --wtns "$c/mix.wtns" --proof "$tmp/x.bin"
grep -q "short.params" "$tmp/out.log" || bad "truncated params: message lacks the file name: $(cat "$tmp/out.log")"
expect_rc 1 "$cuzk" prove --params "$tmp/chain.params" --r1cs "$c/mix.r1cs" --wtns "$c/mix.wtns" --proof "$tmp/x.bin"
head -c 3000 "$z/mix.zkey" >"$tmp/short.zkey"
expect_rc 1 "$cuzk" prove --zkey "$tmp/short.zkey" --wtns "$c/mix.wtns" --proof "$tmp/x.json"
expect_rc 1 "$cuzk" prove --zkey "$z/mix.zkey" --wtns "$c/mul3.wtns" --proof "$tmp/x.json"
head -c 100 "$c/mix.wtns" >"$tmp/short.wtns"
expect_rc 1 "$cuzk" prove --zkey "$z/mix.zkey" --wtns "$tmp/short.wtns" --proof "$tmp/x.json"
head -c 100 "$tmp/p.bin" >"$tmp/short.bin"
expect_rc 2 "$cuzk" verify --vk "$tmp/mix.vk" --proof "$tmp/short.bin" --public "$tmp/pub.json"
expect_rc 2 "$cuzk" prove --zkey "$z/mix.zkey" --params "$tmp/mix.params" --wtns "$c/mix.wtns" --proof "$tmp/x.json"
expect_rc 2 "$cuzk" prove --params "$tmp/mix.params" --wtns "$c/mix.wtns" --proof "$tmp/x.json"

# (f) a witness that does not satisfy the circuit (one aux value changed): no prover writes a proof.
python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[-32]^=1; open(sys.argv[2],"wb").write(b)' \
  "$c/mix.wtns" "$tmp/bad.wtns"
rm -f "$tmp/bad.proof.json" "$tmp/bad.bin"
expect_rc 1 "$cuzk" prove --zkey "$z/mix.zkey" --wtns "$tmp/bad.wtns" --proof "$tmp/bad.proof.json"
grep -q "does not satisfy the circuit" "$tmp/out.log" || bad "prove --zkey on a bad witness: $(cat "$tmp/out.log")"
[ -e "$tmp/bad.proof.json" ] && bad "prove --zkey wrote a proof for a witness that does not satisfy the circuit"
expect_rc 1 "$cuzk" prove --params "$tmp/mix.params" --r1cs "$c/mix.r1cs" --wtns "$tmp/bad.wtns" --proof "$tmp/bad.bin"
grep -q "does not satisfy constraint [0-9]" "$tmp/out.log" || bad "prove --params on a bad witness: $(cat "$tmp/out.log")"
[ -e "$tmp/bad.bin" ] && bad "prove --params wrote a proof for a witness that does not satisfy the circuit"

# A key whose coefficients were altered (one A/B coefficient of the zkey's section 4, a valid field
# element still): the proof does not verify, so none is written.
python3 - "$z/mix.zkey" "$tmp/altered.zkey" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
pos = 12  # "zkey", version, section count
while pos < len(b):
    sid, size = struct.unpack_from("<IQ", b, pos)
    if sid == 4:
        b[pos + 12 + 4 + 12] ^= 1  # first coefficient's value, lowest byte (after nCoefs, matrix, constraint, signal)
        break
    pos += 12 + size
else:
    sys.exit("no coefficient section")
open(sys.argv[2], "wb").write(b)
PY
rm -f "$tmp/altered.proof.json"
expect_rc 1 "$cuzk" prove --zkey "$tmp/altered.zkey" --wtns "$c/mix.wtns" --proof "$tmp/altered.proof.json"
grep -q "does not verify" "$tmp/out.log" || bad "prove --zkey with an altered key: $(cat "$tmp/out.log")"
[ -e "$tmp/altered.proof.json" ] && bad "prove --zkey wrote a proof with an altered key"

# (g) Ctrl-C during `cuzk setup`: exit 130, and neither the .params, the .vk nor the temporary file
#     is left (a 32 GiB key's partial file would be ~47 GB). One thread and small chunks keep the
#     setup running for seconds; SIGINT is sent once it has started writing points.
mkdir -p "$tmp/int"
"$cuzk" setup --circuit filecoin-like:2^17 --backend cpu --threads 1 --params "$tmp/int/k.params" \
  --vk "$tmp/int/k.vk" -q >"$tmp/int.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  ls -a "$tmp/int" | grep -q "tmp-" && break
  sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || bad "setup interrupted: exit $rc, expected 130: $(cat "$tmp/int.log")"
grep -q "interrupted; no file was written" "$tmp/int.log" || bad "setup interrupted: $(cat "$tmp/int.log")"
[ -z "$(ls -A "$tmp/int")" ] && : || bad "setup interrupted left files: $(ls -a "$tmp/int")"

[ "$fail" -eq 0 ] && echo "groth16 cli tests passed"
exit "$fail"
