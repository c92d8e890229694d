# Helpers for the CLI test scripts (sourced, not run). The script sets `tmp` (a scratch directory)
# and `fail=0` first; then:
#   expect_rc WANT CMD...   runs CMD (output to $tmp/out); another exit code fails the test
#   expect_out TEXT         the last expect_rc's output contains TEXT
expect_rc() {
  local want=$1
  shift
  "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want"
    cat "$tmp/out"
    fail=1
  fi
}
expect_out() {
  grep -qF -- "$1" "$tmp/out" || { echo "FAIL: output lacks '$1':"; cat "$tmp/out"; fail=1; }
}
