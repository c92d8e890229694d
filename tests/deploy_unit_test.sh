#!/usr/bin/env bash
# deploy/cuzk-daemon.service: `systemd-analyze verify` finds nothing to say about it (it exits 0
# on unknown keys and bad values but prints them, so any output fails), with ExecStart pointed at
# the built daemon (verify checks that the binary exists). Skipped (exit 77) where systemd-analyze
# is missing or cannot verify even a minimal unit here (no systemd in the container).
# Usage: deploy_unit_test.sh PATH/TO/cuzk-daemon PATH/TO/deploy
set -u
daemon=$1
deploy=$2
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "SKIP: systemd-analyze is not installed (Debian: apt-get install systemd)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '[Service]\nExecStart=%s --version\n' "$daemon" >"$tmp/minimal.service"
if ! out=$(systemd-analyze verify "$tmp/minimal.service" 2>&1) || [ -n "$out" ]; then
  echo "SKIP: systemd-analyze cannot verify units on this machine: $out"
  exit 77
fi
sed "s|^ExecStart=/usr/local/bin/cuzk-daemon |ExecStart=$daemon |" "$deploy/cuzk-daemon.service" \
  >"$tmp/cuzk-daemon.service"
grep -q "^ExecStart=$daemon --config /etc/cuzk/cuzk.toml$" "$tmp/cuzk-daemon.service" || {
  echo "FAIL: ExecStart is not '/usr/local/bin/cuzk-daemon --config /etc/cuzk/cuzk.toml'"
  exit 1
}
out=$(systemd-analyze verify "$tmp/cuzk-daemon.service" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
  echo "FAIL: systemd-analyze verify (exit $rc):"
  echo "$out"
  exit 1
fi
for want in Restart=on-failure RestartPreventExitStatus=2 RuntimeDirectoryMode=0750 MemoryMax= User=curio; do
  grep -q "^$want" "$deploy/cuzk-daemon.service" || { echo "FAIL: the unit lacks $want"; exit 1; }
done
echo "deploy unit: verified"
