# Helpers for the end-to-end test scripts (sourced, not run). The script sets `tmp` (a scratch
# directory), `daemon` (the cuzk-daemon binary) and `fail=0` first; then:
#   run WANT_RC LOG CMD...   runs CMD, output to LOG; a different exit code fails the test
#   expect_in LOG TEXT WHAT  LOG must contain TEXT
#   start_daemon             a daemon on $sock with $tmp/cuzk.toml and $tmp/data, waits for it
#   stop_daemon              SIGTERM; it must drain and exit 0
# The caller's EXIT trap should kill "$pid" when it is set.
sock="unix://$tmp/run/cuzk.sock"
pid=

run() {
  local want=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: '$*' exited $rc, expected $want"
    tail -20 "$log"
    fail=1
  fi
}

expect_in() {
  grep -q -- "$2" "$1" || { echo "FAIL: $3: no '$2' in:"; tail -5 "$1"; fail=1; }
}

start_daemon() {
  rm -f "$tmp/daemon.out"  # not the last daemon's "listening"
  "$daemon" --config "$tmp/cuzk.toml" --listen "$sock" --data-dir "$tmp/data" >"$tmp/daemon.out" 2>"$tmp/daemon.log" &
  pid=$!
  for _ in $(seq 1 600); do
    grep -q "^listening" "$tmp/daemon.out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q '^listening' "$tmp/daemon.out" || { echo "FAIL: the daemon did not start:"; tail -20 "$tmp/daemon.log"; exit 1; }
}

stop_daemon() {
  kill -TERM "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=
  [ "$rc" -eq 0 ] || { echo "FAIL: the daemon exited $rc after SIGTERM"; tail -20 "$tmp/daemon.log"; fail=1; }
}
