#!/usr/bin/env bash
# `cuzk circuit info` end to end: exit codes, and the counts the reference implementation's tests
# assert, read back through the CLI (text and JSON).
# Usage: circuit_info_test.sh PATH/TO/cuzk
set -u
cuzk=$1
fail=0
expect_rc() {  # expect_rc WANT CMD...
  local want=$1
  shift
  local out
  out=$("$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want"
    echo "$out"
    fail=1
  fi
}
expect_json() {  # expect_json KEY VALUE ARGS...: runs circuit info --json ARGS and checks one key
  local key=$1 want=$2
  shift 2
  local out
  out=$("$cuzk" circuit info --json "$@")
  if ! echo "$out" | grep -q "\"$key\": $want,\?\$"; then
    echo "FAIL: circuit info $* : expected \"$key\": $want in"
    echo "$out"
    fail=1
  fi
}
expect_rc 2 "$cuzk" circuit
expect_rc 2 "$cuzk" circuit info
expect_rc 2 "$cuzk" circuit info --circuit no-such-circuit
expect_rc 2 "$cuzk" circuit info --circuit por --arity 3
expect_rc 0 "$cuzk" circuit info --circuit por --hasher poseidon
# 64 leaves do not fill an arity-16 tree.
expect_rc 1 "$cuzk" circuit info --circuit por --hasher poseidon --arity 16
expect_rc 1 "$cuzk" circuit info --circuit insert --size 6
expect_rc 0 "$cuzk" circuit info --circuit sha256-hash2

# storage-proofs-core tests/por_circuit.rs (SHA-256, 64 leaves, public root): constraints and inputs.
expect_json constraints 272295 --circuit por --hasher sha256 --arity 2
expect_json constraints 216258 --circuit por --hasher sha256 --arity 4
expect_json constraints 250987 --circuit por --hasher sha256 --arity 8
# The same test with PoseidonHasher (64 leaves per base tree), and its private-root cases.
expect_json constraints 1887 --circuit por --hasher poseidon --arity 2
expect_json constraints 1063 --circuit por --hasher poseidon --arity 8
expect_json constraints 1764 --circuit por --hasher poseidon --arity 8 --sub 4 --top 2
expect_json constraints 1593 --circuit por --hasher poseidon --arity 8 --sub-arity 8
expect_json constraints 1163 --circuit por --hasher poseidon --arity 4 --private-root
expect_json inputs 3 --circuit por --hasher poseidon --arity 8 --sub 2 --top 4
expect_json inputs 3 --circuit por --arity 8
expect_json inputs 2 --circuit por --arity 8 --private-root
# insertion.rs test_insert (after the index bits) and bellperson's SHA-256 tests.
expect_json reference_constraints 22 --circuit insert --size 8
expect_json reference_constraints 8 --circuit insert --size 4
expect_json reference_constraints 44874 --circuit sha256 --bits 512
expect_json reference_constraints 25840 --circuit sha256-block
# create_label.rs test_create_label.
expect_json constraints 532025 --circuit create-label
# The PoRep C2 circuit: the reference's test circuits (stacked_circuit.rs) and the 2 KiB / 8 MiB
# partition (filecoin-circuits.md 2.4); 32/64 GiB are counted by porep.circuit_large_sectors.
expect_json constraints 1206212 --circuit porep-test --arity 2
expect_json constraints 1199620 --circuit porep-test --arity 8
expect_json constraints 1296576 --circuit porep-test --arity 8 --sub 4
expect_json constraints 1346982 --circuit porep-test --arity 8 --sub 4 --top 2
expect_json inputs 22 --circuit porep-test --arity 8
expect_json constraints 2687921 --circuit porep --sector-size 2KiB
expect_json inputs 40 --circuit porep --sector-size 2KiB
expect_json aux 2685673 --circuit porep --sector-size 2KiB
expect_json pce_rows 2687961 --circuit porep --proof StackedDrg2KiBV1_2_Feat_NonInteractivePoRep
expect_json constraints 3844929 --circuit porep --sector-size 8MiB
# FallbackPoSt (tests/fallback_circuit.rs's shapes, filecoin-circuits.md 7.1); the 32/64 GiB
# WindowPoSt counts are post.circuit_counts_32_64gib (slow).
expect_json constraints 16869 --circuit post-test --sectors 3 --challenges 5 --arity 8
expect_json inputs 19 --circuit post-test --sectors 3 --challenges 5 --arity 8 --sub-arity 4 --top-arity 2
expect_json constraints 11246 --circuit post-test --sectors 2 --challenges 5 --arity 8
expect_json constraints 21866 --circuit window-post --sector-size 2KiB
expect_json inputs 23 --circuit window-post --proof StackedDrgWindow2KiBV1
expect_json constraints 90750 --circuit winning-post --sector-size 2KiB
expect_json inputs 133 --circuit winning-post --sector-size 2KiB
# SnapDeals (storage-proofs-update tests/circuit.rs, circuit_poseidon.rs; filecoin-circuits.md
# 7.2); the other sizes are counted by test_snap_circuit.
expect_json constraints 1248389 --circuit snap --sector-size 1KiB
expect_json constraints 1705039 --circuit snap --sector-size 2KiB
expect_json inputs 5 --circuit snap-poseidon --sector-size 1KiB
expect_json constraints 32164 --circuit snap-poseidon --sector-size 1KiB
expect_rc 1 "$cuzk" circuit info --circuit snap --sector-size 64KiB
expect_rc 1 "$cuzk" circuit info --circuit snap
expect_rc 1 "$cuzk" circuit info --circuit window-post --proof StackedDrgWinning2KiBV1
expect_rc 1 "$cuzk" circuit info --circuit winning-post
expect_rc 1 "$cuzk" circuit info --circuit porep --sector-size 3KiB
expect_rc 1 "$cuzk" circuit info --circuit porep

out=$("$cuzk" circuit info --circuit sha256-hash2)
echo "$out" | grep -q "^constraints  *45379$" || { echo "FAIL: text output: $out"; fail=1; }

if [ "$fail" -ne 0 ]; then
  echo "circuit info test FAILED"
  exit 1
fi
echo "circuit info test passed"
