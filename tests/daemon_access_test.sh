#!/usr/bin/env bash
# Who reaches cuzk-daemon, end to end:
# - the seed daemon's cuzk.toml (tests/config/seed-cuzk.toml): --check-config refuses it as it
#   stands (its listen is open to every host) and loads it with the allowlist opt-in, one warning
#   per key that has no effect here;
# - a TCP listener with daemon.allow_unauthenticated_from: a listed client is served and sees the
#   networks in cuzk-bench status (text and --json), an unlisted one is closed and logged once; a
#   seed key without effect in its config is logged once at start-up;
# - as root, the unix socket's mode and group with other users: a temporary user in a temporary
#   group connects through a socket of mode 0660 and that group (and the directories made for it),
#   a user outside the group is denied, and with the default 0600 so is the member.
# Usage: daemon_access_test.sh PATH/TO/cuzk-daemon PATH/TO/cuzk-bench SOURCE_DIR
set -u
daemon=$1
bench=$2
src=$3
fail=0
tmp=$(mktemp -d)
pid=
user=
group=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$user" ] && userdel "$user" 2>/dev/null
  [ -n "$group" ] && groupdel "$group" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
source "$(dirname "$0")/cli_lib.sh"

# start_daemon CONFIG: runs the daemon in the background until it prints "listening".
start_daemon() {
  "$daemon" --config "$1" >"$tmp/daemon.out" 2>"$tmp/daemon.log" &
  pid=$!
  for _ in $(seq 200); do
    grep -q '^listening ' "$tmp/daemon.out" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL: the daemon did not start with $1:"
  cat "$tmp/daemon.log"
  fail=1
  return 1
}
stop_daemon() {
  kill "$pid" && wait "$pid"
  local rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: the daemon exited $rc after SIGTERM"; fail=1; }
  pid=
}
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- the seed daemon's configuration ----
seed="$src/tests/config/seed-cuzk.toml"
expect_rc 2 "$daemon" --check-config -c "$seed"
expect_out 'daemon.listen = "0.0.0.0:9820": this accepts connections from other machines'
expect_out "daemon.allow_unauthenticated_from"
sed 's|^status_listen = .*|&\nallow_remote = true\nallow_unauthenticated_from = ["10.0.0.0/8"]|' "$seed" >"$tmp/seed.toml"
"$daemon" --check-config -l unix:///run/curio/cuzk.sock -c "$tmp/seed.toml" >"$tmp/out" 2>"$tmp/err" &&
  fail=1 && echo "FAIL: the allowlist on a unix socket (--listen) must be refused"
grep -qF "the allowlist is for TCP listeners" "$tmp/err" || { echo "FAIL: $(cat "$tmp/err")"; fail=1; }
if "$daemon" --check-config -c "$tmp/seed.toml" >"$tmp/out" 2>"$tmp/err"; then
  warnings=$(grep -c '^cuzk-daemon: warning: ' "$tmp/err")
  [ "$warnings" -eq 12 ] || { echo "FAIL: expected 12 warnings, got $warnings:"; cat "$tmp/err"; fail=1; }
  grep -qF 'gpus.gpu_threads' "$tmp/err" && { echo "FAIL: a mapped key was warned about"; fail=1; }
  for line in 'metrics_listen = "0.0.0.0:9821"' 'threads = 32' 'param_dir = "/data/zk/params"' 'workers = 18'; do
    grep -qxF "$line" "$tmp/out" || { echo "FAIL: --check-config lacks '$line'"; fail=1; }
  done
else
  echo "FAIL: the seed's file with the opt-in did not load: $(cat "$tmp/err")"
  fail=1
fi

# ---- a TCP listener with an allowlist (loopback) ----
port=$(free_port)
tcp_config() { # tcp_config NETWORK
  printf '[daemon]\nlisten = "127.0.0.1:%s"\ndata_dir = "%s/data"\nallow_unauthenticated_from = ["%s"]\n' \
    "$port" "$tmp" "$1" >"$tmp/tcp.toml"
  printf '[gpus]\nbackend = "cpu"\n[pipeline]\nslot_size = 3\n' >>"$tmp/tcp.toml"
}
tcp_config 127.0.0.1/32
if start_daemon "$tmp/tcp.toml"; then
  grep -q 'warning access unauthenticated_from=127.0.0.1/32' "$tmp/daemon.log" ||
    { echo "FAIL: no start-up warning naming the networks"; fail=1; }
  # The seed's key without effect: logged once, as a preflight warning.
  n=$(grep -c 'pipeline.slot_size' "$tmp/daemon.log")
  grep -q 'warning preflight status=warn check="config pipeline.slot_size"' "$tmp/daemon.log" && [ "$n" -eq 1 ] ||
    { echo "FAIL: the config warning is not logged once ($n):"; cat "$tmp/daemon.log"; fail=1; }
  expect_rc 0 "$bench" -a "127.0.0.1:$port" status
  expect_out "clients from 127.0.0.1/32 call without TLS or a token (daemon.allow_unauthenticated_from)"
  expect_rc 0 "$bench" -a "127.0.0.1:$port" status --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["unauthenticated_from"] == ["127.0.0.1/32"], s["unauthenticated_from"]
PY
  stop_daemon
fi
tcp_config 127.0.0.2/32
if start_daemon "$tmp/tcp.toml"; then
  expect_rc 1 "$bench" -a "127.0.0.1:$port" status
  expect_out "closes connections from other addresses"
  expect_rc 1 "$bench" -a "127.0.0.1:$port" status
  refused=$(grep -c 'connection_refused peer=127.0.0.1 ' "$tmp/daemon.log")
  [ "$refused" -eq 1 ] || { echo "FAIL: expected one refusal line (one a minute per address), got $refused"; fail=1; }
  stop_daemon
fi

# ---- the unix socket's mode and group, with other users (root only) ----
if [ "$(id -u)" -ne 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
  echo "SKIP (not a failure): the socket checks with other users need root, useradd and setpriv"
else
  group=cuzkacc$$
  user=cuzkacc$$
  groupadd "$group" && useradd -M -N -g nogroup -G "$group" -s /usr/sbin/nologin "$user" ||
    { echo "FAIL: cannot create a test user"; fail=1; }
  chmod 755 "$tmp"
  # The client must be runnable by the other users: a copy in the scratch directory.
  cp "$bench" "$tmp/cuzk-bench" && chmod 755 "$tmp/cuzk-bench"
  sock="$tmp/run/curio/cuzk.sock"
  as() { # as USER CMD...: runs CMD as USER with USER's groups
    local who=$1
    shift
    setpriv --reuid="$who" --regid=nogroup --init-groups "$@"
  }
  printf '[daemon]\nlisten = "unix://%s"\ndata_dir = "%s/data"\nsocket_mode = "0660"\nsocket_group = "%s"\n[gpus]\nbackend = "cpu"\n' \
    "$sock" "$tmp" "$group" >"$tmp/sock.toml"
  if start_daemon "$tmp/sock.toml"; then
    [ "$(stat -c '%a %G' "$sock")" = "660 $group" ] || { echo "FAIL: socket $(stat -c '%a %G' "$sock")"; fail=1; }
    [ "$(stat -c '%a %G' "$tmp/run/curio")" = "750 $group" ] || { echo "FAIL: dir $(stat -c '%a %G' "$tmp/run/curio")"; fail=1; }
    expect_rc 0 as "$user" "$tmp/cuzk-bench" -a "unix://$sock" status
    expect_rc 1 as nobody "$tmp/cuzk-bench" -a "unix://$sock" status
    expect_out "permission denied"
    stop_daemon
  fi
  printf '[daemon]\nlisten = "unix://%s"\ndata_dir = "%s/data"\n[gpus]\nbackend = "cpu"\n' "$sock" "$tmp" >"$tmp/sock.toml"
  chmod 755 "$tmp/run" "$tmp/run/curio" # as an operator might: only the socket's own mode keeps the user out
  if start_daemon "$tmp/sock.toml"; then
    [ "$(stat -c '%a' "$sock")" = "600" ] || { echo "FAIL: default socket mode $(stat -c '%a' "$sock")"; fail=1; }
    expect_rc 1 as "$user" "$tmp/cuzk-bench" -a "unix://$sock" status
    expect_out "permission denied on the daemon socket $sock (mode 0600"
    stop_daemon
  fi
fi

[ "$fail" -eq 0 ] && echo "daemon access: all checks passed"
exit "$fail"
