#!/usr/bin/env bash
# `cuzk doctor` end to end on a temporary configuration: exit codes (0 no failure, 1 a failed
# check, 2 usage or configuration errors), the --json shape, an official parameter file name with a
# valid layout but the wrong bytes (passes by layout, fails with --digests), a damaged one (fails),
# missing files listed; the access checks (token file, the unix socket's mode and group and the
# directories above it, networks allowed without authentication) and the seed daemon's keys that
# have no effect (one warn line each). Runs in about a second.
# Usage: doctor_test.sh PATH/TO/cuzk
set -u
cuzk=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/cli_lib.sh"

# The official name of the 2 KiB PoRep files (rust-fil-proofs parameters.json).
stem=v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f
mkdir -p "$tmp/params"
cat >"$tmp/cuzk.toml" <<TOML
[daemon]
data_dir = "data"
[srs]
param_dir = "params"
[gpus]
backend = "cpu"
TOML

expect_rc 0 "$cuzk" doctor --help
expect_rc 2 "$cuzk" doctor --no-such-option
expect_rc 2 "$cuzk" doctor --config "$tmp/none.toml"
printf '[daemon]\nlisen = "x"\n' >"$tmp/typo.toml"
expect_rc 2 "$cuzk" doctor --config "$tmp/typo.toml"
expect_out "unknown key 'lisen'"

# No parameter files: warnings only.
expect_rc 0 "$cuzk" doctor --config "$tmp/cuzk.toml"
expect_out "0 of 40 official files present"
expect_rc 0 "$cuzk" doctor --config "$tmp/cuzk.toml" --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is True and r["fail"] == 0, r
assert r["pass"] + r["warn"] == len(r["checks"]), r
for c in r["checks"]:
    assert set(c) == {"group", "name", "status", "message", "facts"}, c
    assert c["status"] in ("pass", "warn", "fail") and c["message"], c
    assert isinstance(c["facts"], dict), c
cfg = [c for c in r["checks"] if c["group"] == "config"][0]
assert "[daemon]" in cfg["facts"]["toml"] and cfg["facts"]["backend"] == "cpu", cfg
mem = [c for c in r["checks"] if c["group"] == "memory"][0]
assert isinstance(mem["facts"]["budget"], int), mem
access = {c["name"]: c for c in r["checks"] if c["group"] == "access"}
assert set(access) == {"tls", "bearer token", "unix socket", "unauthenticated networks", "metrics endpoint"}, access
assert access["unix socket"]["facts"]["mode"] == "0600", access
assert access["unauthenticated networks"]["facts"]["networks"] == "", access
assert all(c["status"] == "pass" for c in access.values()), access
PY

# A key with a valid layout under the official name (test-only keys of another circuit): it passes
# by name, size and layout; its digest is not parameters.json's, so --digests fails it.
"$cuzk" setup --circuit chain:2^8 --params "$tmp/params/$stem.params" --vk "$tmp/params/$stem.vk" \
  --backend cpu >/dev/null 2>&1 || { echo "FAIL: setup"; fail=1; }
expect_rc 0 "$cuzk" doctor --config "$tmp/cuzk.toml"
expect_out "2 of 40 official files present; missing: window-post:2KiB (.params .vk)"
expect_out "pass  kind    porep:2KiB: host: key"
expect_rc 1 "$cuzk" doctor --config "$tmp/cuzk.toml" --digests
expect_out "is not parameters.json's 434fb1338ecfaf0f59256f30dde4968f"
expect_out "0 warn, 2 fail"

# A damaged file under the official name fails without --digests.
head -c 5000 /dev/urandom >"$tmp/params/$stem.params"
expect_rc 1 "$cuzk" doctor --config "$tmp/cuzk.toml" --json
python3 - "$tmp/out" "$stem.params" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is False and r["fail"] >= 1, r
bad = [c for c in r["checks"] if c["name"] == sys.argv[2]][0]
assert bad["status"] == "fail" and "not a valid parameter file" in bad["message"], bad
assert bad["facts"]["bytes"] == 5000, bad
PY

# Access: a bearer token file other users can read fails, naming the fix.
printf '%s\n' 0123456789abcdef0123456789abcdef >"$tmp/token"
chmod 644 "$tmp/token"
printf '[daemon]\ndata_dir = "data"\nauth_token_file = "token"\n[gpus]\nbackend = "cpu"\n' >"$tmp/token.toml"
expect_rc 1 "$cuzk" doctor --config "$tmp/token.toml"
expect_out "fail  access  bearer token: daemon.auth_token_file: the token file $tmp/token has mode 0644"
expect_out "chmod 600 $tmp/token"
chmod 600 "$tmp/token"
expect_rc 0 "$cuzk" doctor --config "$tmp/token.toml"
expect_out "pass  access  bearer token: required on every call ($tmp/token)"

# The seed daemon's keys that have no effect here: one warn line each, in the table and the JSON.
printf '[daemon]\ndata_dir = "data"\n[gpus]\nbackend = "cpu"\ngpu_threads = 8\n[pipeline]\nslot_size = 3\n' >"$tmp/seed.toml"
expect_rc 0 "$cuzk" doctor --config "$tmp/seed.toml"
expect_out "warn  config  pipeline.slot_size: pipeline.slot_size (a key of the seed daemon's configuration) has no effect here"
expect_rc 0 "$cuzk" doctor --config "$tmp/seed.toml" --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
warned = [c for c in r["checks"] if c["group"] == "config" and c["status"] == "warn"]
assert [c["name"] for c in warned] == ["pipeline.slot_size"], warned
assert warned[0]["facts"] == {"key": "pipeline.slot_size"}, warned
assert "threads = 8" in [c for c in r["checks"] if c["name"] == "effective configuration"][0]["facts"]["toml"]
PY

# The socket's mode and group, and who they let in.
printf '[daemon]\ndata_dir = "data"\nsocket_mode = "0660"\nsocket_group = "%s"\n[gpus]\nbackend = "cpu"\n' \
  "$(id -gn)" >"$tmp/group.toml"
expect_rc 0 "$cuzk" doctor --config "$tmp/group.toml"
expect_out "warn  access  unix socket: mode 0660, group $(id -gn) (gid $(id -g)): "
expect_out "and the members of the group can connect"
expect_out "but directory $tmp (mode 0700, group $(id -gn) (gid $(id -g))) keeps the group's members from reaching"
chmod 755 "$tmp" # mktemp's 0700 kept them out; the data directory the daemon makes lets them in
expect_rc 0 "$cuzk" doctor --config "$tmp/group.toml"
expect_out "pass  access  unix socket: mode 0660, group $(id -gn) (gid $(id -g)): "
printf '[daemon]\nsocket_group = "no-such-group-cuzk"\n' >"$tmp/nogroup.toml"
expect_rc 2 "$cuzk" doctor --config "$tmp/nogroup.toml"
expect_out "daemon.socket_group = \"no-such-group-cuzk\": no group named 'no-such-group-cuzk' on this host"

# Networks allowed without authentication: a warning that names them.
printf '[daemon]\nlisten = "0.0.0.0:9820"\nallow_remote = true\nallow_unauthenticated_from = ["10.0.0.0/8", "fd00::/8"]\n[gpus]\nbackend = "cpu"\n' \
  >"$tmp/allow.toml"
expect_rc 0 "$cuzk" doctor --config "$tmp/allow.toml"
expect_out "warn  access  unauthenticated networks: clients from 10.0.0.0/8, fd00::/8 call every RPC without TLS or a token"

[ "$fail" -eq 0 ] && echo "doctor: all checks passed"
exit "$fail"
