#!/usr/bin/env bash
# End-to-end checks of the `cuzk` CLI: exit codes, selfcheck, and speed's JSON keys.
# Usage: cli_test.sh PATH/TO/cuzk
set -u
cuzk=$1
fail=0
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
rm -f /tmp/cuzk-cli-test.$$
[ "$fail" -eq 0 ] && echo "cli tests passed"
exit "$fail"
