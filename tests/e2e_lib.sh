# Helpers for the end-to-end test scripts (sourced, not run). The script sources it after `set -u`
# with its own arguments, PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench; that sets `cuzk`,
# `daemon`, `bench`, `fail=0`, `tmp` (a scratch directory, kept when KEEP is set for a look
# afterwards) and an EXIT trap that kills a daemon still running and removes $tmp. Then:
#   run WANT_RC LOG CMD...   runs CMD, output to LOG; a different exit code fails the test
#   expect_in LOG TEXT WHAT  LOG must contain TEXT
#   start_daemon [LIMIT]     a daemon on $sock with $tmp/cuzk.toml and $tmp/data, waits for it;
#                            LIMIT: a file size limit on it (ulimit -f, KiB)
#   stop_daemon              SIGTERM; it must drain and exit 0
#   finish NAME              "NAME passed", or "NAME FAILED" and exit 1 after any failure
cuzk=$1
daemon=$2
bench=$3
fail=0
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
sock="unix://$tmp/run/cuzk.sock"

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
  local limit=${1:-}
  rm -f "$tmp/daemon.out"  # not the last daemon's "listening"
  (
    [ -z "$limit" ] || ulimit -f "$limit" || exit 1
    exec "$daemon" --config "$tmp/cuzk.toml" --listen "$sock" --data-dir "$tmp/data" >"$tmp/daemon.out" 2>"$tmp/daemon.log"
  ) &
  pid=$!
  for _ in $(seq 1 1200); do
    grep -q "^listening" "$tmp/daemon.out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
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

finish() {
  if [ "$fail" -ne 0 ]; then
    echo "$1 FAILED"
    exit 1
  fi
  echo "$1 passed"
}
