#!/usr/bin/env bash
# End-to-end checks of the `cuzk` CLI: exit codes, selfcheck, speed's JSON keys, and the pce
# commands on a circom fixture (extract, info, verify of a sound and of damaged files, bench).
# Usage: cli_test.sh PATH/TO/cuzk PATH/TO/tests/circom
set -u
cuzk=$1
circom=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_rc() {  # expect_rc WANT CMD...
  local want=$1
  shift
  "$@" >/tmp/cuzk-cli-test.$$ 2>&1
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want"
    cat /tmp/cuzk-cli-test.$$
    fail=1
  fi
}
expect_rc 0 "$cuzk" --help
expect_rc 0 "$cuzk" --version
expect_rc 2 "$cuzk"
expect_rc 2 "$cuzk" no-such-command
expect_rc 2 "$cuzk" speed --threads 0
expect_rc 2 "$cuzk" speed --only no_such_key
expect_rc 0 "$cuzk" selfcheck
out=$("$cuzk" selfcheck --json)
echo "$out" | grep -q '"failed": 0' || { echo "FAIL: selfcheck --json: $out"; fail=1; }
out=$("$cuzk" speed --threads 2 --json --only fr_mul_ns,g1_msm_2_12_ms,ntt_2_16_ms)
for key in '"threads": 2' '"fr_mul_ns": ' '"g1_msm_2_12_ms": ' '"ntt_2_16_ms": '; do
  echo "$out" | grep -q "$key" || { echo "FAIL: speed --json lacks $key: $out"; fail=1; }
done

# pce
expect_rc 2 "$cuzk" pce
expect_rc 2 "$cuzk" pce extract -o "$tmp/x.pce"
expect_rc 2 "$cuzk" pce extract --r1cs "$circom/mix.r1cs" --synthetic-porep 0.001 -o "$tmp/x.pce"
expect_rc 0 "$cuzk" pce extract --r1cs "$circom/mix.r1cs" -o "$tmp/mix.pce"
out=$("$cuzk" pce info "$tmp/mix.pce" --json)
for key in '"constraints": 669' '"inputs": 3' '"aux": 665' '"nnz_a": ' '"nnz_b": ' '"nnz_c": ' \
  '"distinct_coefficients": ' '"file_bytes": ' '"encoding": "dict16"' '"circuit_id": "circom:mix"'; do
  echo "$out" | grep -q "$key" || { echo "FAIL: pce info --json lacks $key: $out"; fail=1; }
done
expect_rc 0 "$cuzk" pce info "$tmp/mix.pce"
expect_rc 0 "$cuzk" pce verify "$tmp/mix.pce"
expect_rc 0 "$cuzk" pce verify --mode read "$tmp/mix.pce"
cp "$tmp/mix.pce" "$tmp/bad.pce"
size=$(stat -c %s "$tmp/bad.pce")
printf '\xff' | dd of="$tmp/bad.pce" bs=1 seek=$((size / 2)) conv=notrunc status=none
out=$("$cuzk" pce verify "$tmp/bad.pce" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && echo "$out" | grep -q "checksum" || { echo "FAIL: corrupted pce: rc $rc: $out"; fail=1; }
head -c $((size - 100)) "$tmp/mix.pce" >"$tmp/short.pce"
expect_rc 1 "$cuzk" pce verify "$tmp/short.pce"
expect_rc 1 "$cuzk" pce info "$tmp/short.pce"
expect_rc 1 "$cuzk" pce verify "$tmp/missing.pce"
expect_rc 0 "$cuzk" pce extract --circuit chain:2^10 -o "$tmp/chain.pce" --quiet
out=$("$cuzk" pce info "$tmp/chain.pce" --json)
echo "$out" | grep -q '"circuit_id": "builtin:chain:1024"' || { echo "FAIL: builtin pce info: $out"; fail=1; }
expect_rc 2 "$cuzk" pce extract --circuit nope:2^10 -o "$tmp/nope.pce"
expect_rc 0 "$cuzk" pce extract --synthetic-porep 0.0001 -o "$tmp/syn.pce" --quiet
out=$("$cuzk" pce bench "$tmp/syn.pce" --reps 1 --threads 2 --json)
for key in '"plain_read_gbps": ' '"mmap_open_ms": ' '"read_checksums_vs_plain_read": ' '"matvec_speedup": '; do
  echo "$out" | grep -q "$key" || { echo "FAIL: pce bench --json lacks $key: $out"; fail=1; }
done
rm -f /tmp/cuzk-cli-test.$$
[ "$fail" -eq 0 ] && echo "cli tests passed"
exit "$fail"
