#!/usr/bin/env bash
# Faults (issue #23 item 2) against the real daemon, on built-in chain circuits:
#   1. SIGKILL mid-PCE-save, 2. mid-key-save (test-only keys, srs.test_keys = "file"), then restart
#      on the same data directory: the killed save's temporary file is removed at start-up (logged),
#      every file under a final name is the old one (same sha256) or a new complete one (`cuzk pce
#      verify`, or the daemon loads it and proves), the client of the killed daemon got an error
#      and no proof, its job id is unknown to the new daemon (NOT_FOUND) and the same request id
#      runs again and verifies;
#   3. SIGKILL mid-proof with jobs queued: every client answer is an error or a verified proof,
#      never a partial one; no file changes;
#   4. SIGKILL mid-params-load (the key file open, srs_loaded not yet logged): no file changes, the
#      restarted daemon loads the keys and proves;
#   5. a client killed mid-request: the daemon keeps serving, the job completes (or is cancelled),
#      its running-job count returns to 0 and its open fds to where they were;
#   6. a full disk, twice: as a file size limit on the daemon (ulimit -f: writes fail with EFBIG;
#      the daemon ignores SIGXFSZ), then for real, the data directory on a small tmpfs (ENOSPC;
#      needs root and mount, else skipped with a NOTE saying why): a PCE save and a key save that
#      do not fit fail the request with "File too large" or "No space left on device" and the file
#      named, leave nothing under the final name and no temporary file, and the daemon keeps
#      proving what fits and exits cleanly on SIGTERM.
# A kill "mid-save" freezes the daemon (SIGSTOP) as soon as the temporary file appears and kills
# it only if the file is still there, so the kill lands inside the save (else it tries again).
# Usage: daemon_fault_test.sh ci|full PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench
#   ci:   chain:2^11 (keys made in ~1 s), each kill once (the CI budget: ~15 s in all).
#   full: chain:2^15 and 2^16 too, and each kill repeated (rounds), the slow label.
set -u
mode=$1
shift
source "$(dirname "$0")/e2e_lib.sh" "$@"
if [ "$mode" != ci ] && [ "$mode" != full ]; then
  echo "usage: daemon_fault_test.sh ci|full CUZK CUZK_DAEMON CUZK_BENCH"
  exit 2
fi
if [ "$mode" = full ]; then
  circuits="chain:2^11 chain:2^15 chain:2^16"
  rounds=3
else
  circuits="chain:2^11"
  rounds=1
fi
data="$tmp/data"
# SIGKILL at exit: a daemon left frozen (SIGSTOP) by a failure would ignore e2e_lib's SIGTERM. The
# daemon must be gone before the tmpfs of the full-disk case can be unmounted.
mounted=
cleanup() {
  if [ -n "$pid" ]; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  [ -z "$mounted" ] || umount "$mounted" || umount -l "$mounted"
  [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cat >"$tmp/cuzk.toml" <<EOF
[srs]
allow_test_keys = true
test_keys = "file"
[gpus]
backend = "cpu"
EOF

# ---- helpers ----

t_start=$(date +%s.%N)
elapsed() { awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t_start}"; }
note() { echo "[$(elapsed) s] $*"; }
bad() {
  echo "FAIL: $*"
  fail=1
}

# e2e_lib's start_daemon truncates $tmp/daemon.log; the earlier starts' lines go to daemons.log,
# for a look afterwards (KEEP=1). LIMIT as start_daemon's.
restart() {
  [ ! -f "$tmp/daemon.log" ] || cat "$tmp/daemon.log" >>"$tmp/daemons.log"
  start_daemon "$@"
}

sigkill_daemon() {
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
}

# The files under final names (not AtomicFile's ".<name>.tmp-*"), with their sha256.
snapshot() { (cd "$data" && find . -type f ! -name '.*.tmp-*' -print0 | sort -z | xargs -0 -r sha256sum); }
temp_files() { find "$data" -name '.*.tmp-*' 2>/dev/null; }

# Every file of snapshot OLD is unchanged or absent now; every new file passes CHECK (a command
# given the path; "" for none).
check_old_or_new() {
  local old=$1 what=$2 sum path
  snapshot >"$tmp/snap.now"
  while read -r sum path; do
    local was
    was=$(awk -v p="$path" '$2 == p {print $1}' "$old")
    if [ -n "$was" ]; then
      [ "$was" = "$sum" ] || bad "$what: $path changed under its final name"
    else
      case "$path" in
        *.pce) "$cuzk" pce verify "$data/$path" >"$tmp/pce-verify.log" 2>&1 ||
          bad "$what: the new $path does not verify: $(tail -2 "$tmp/pce-verify.log")" ;;
      esac
    fi
  done <"$tmp/snap.now"
}

# metric NAME: the value of an unlabelled (or fully written) metric, as an integer.
metric() { "$bench" -a "$sock" metrics 2>/dev/null | awk -v m="$1" '$1 == m {printf "%d\n", $2}'; }

# SIGSTOP, then waits until every thread of the daemon is stopped (a thread running on another
# core goes on for a moment after kill returns: long enough to finish a save).
freeze() {
  kill -STOP "$pid"
  local t line state end=$((SECONDS + 10))
  while [ "$SECONDS" -lt "$end" ]; do
    state=T
    for t in "/proc/$pid/task/"*; do
      read -r line <"$t/stat" 2>/dev/null || continue
      line=${line##*) }
      [ "${line%% *}" = T ] || state=running
    done
    [ "$state" = T ] && return 0
  done
}
# Freezes the daemon inside a save: spins until a file matching GLOB appears (or CLIENT, a pid,
# ends, or 120 s pass), SIGSTOPs the daemon, and returns 0 when the file is still there (the
# daemon is stopped mid-save), else resumes it and returns 1.
stop_mid_save() {
  local glob=$1 client=$2 end=$((SECONDS + 120))
  until compgen -G "$glob" >/dev/null; do
    kill -0 "$client" 2>/dev/null || return 1
    [ "$SECONDS" -lt "$end" ] || return 1
  done
  freeze
  compgen -G "$glob" >/dev/null && return 0
  kill -CONT "$pid"
  return 1
}

# One proof through the daemon, verified by cuzk-bench; LOG gets its output.
prove_ok() {
  local circuit=$1 log=$2
  shift 2
  "$bench" -a "$sock" single --circuit "$circuit" --partitions 2 "$@" >"$log" 2>&1 ||
    bad "a proof of $circuit failed: $(tail -3 "$log")"
}

# The client of a killed daemon: exit status not 0, an error that says why, no proof file.
check_killed_client() {
  local cpid=$1 log=$2 proof=$3 what=$4 rc=0
  wait "$cpid" || rc=$?
  [ "$rc" -ne 0 ] || bad "$what: the client of the killed daemon exited 0"
  grep -qiE "unavailable|socket|connect" "$log" || bad "$what: the client's error does not say why: $(tail -2 "$log")"
  [ ! -e "$proof" ] || bad "$what: a proof file was written"
}

# After a restart: the killed save's temporary files removed and logged, none left.
check_temps_removed() {
  local what=$1 n
  n=$(grep -c "stale_temp_file_removed" "$tmp/daemon.log")
  [ "$n" -ge 1 ] || bad "$what: the restarted daemon removed no temporary file"
  [ -z "$(temp_files)" ] || bad "$what: temporary files left: $(temp_files)"
}

# The old job id is unknown to the new daemon (never a stale or partial answer), and the same
# request id runs again and verifies.
check_rerun() {
  local circuit=$1 id=$2 what=$3
  if "$bench" -a "$sock" cancel --job "$id" >"$tmp/cancel.log" 2>&1; then
    bad "$what: job $id is known to the restarted daemon"
  fi
  grep -q "not found" "$tmp/cancel.log" || bad "$what: cancel of $id: $(tail -2 "$tmp/cancel.log")"
  prove_ok "$circuit" "$tmp/rerun-$id.log" --request-id "$id"
}

# ---- 1, 2: SIGKILL mid-save, restart ----

# kill_mid_save GLOB WHAT CIRCUIT ID: a request that makes CIRCUIT's PCE and keys, the daemon
# killed inside the save whose temporary file matches GLOB; tries up to 5 requests (a small PCE's
# save can end between two looks). Leaves the daemon restarted.
kill_mid_save() {
  local glob=$1 what=$2 circuit=$3 id=$4 try
  for try in 1 2 3 4 5; do
    snapshot >"$tmp/snap.before"
    "$bench" -a "$sock" single --circuit "$circuit" --partitions 2 --request-id "$id-$try" \
      --proof-out "$tmp/$id-$try.bin" >"$tmp/$id-$try.log" 2>&1 &
    local cpid=$!
    if stop_mid_save "$glob" "$cpid"; then
      note "$what: killed in the save of $(basename "$(compgen -G "$glob" | head -1)") (try $try)"
      sigkill_daemon
      check_killed_client "$cpid" "$tmp/$id-$try.log" "$tmp/$id-$try.bin" "$what"
      restart
      check_temps_removed "$what"
      check_old_or_new "$tmp/snap.before" "$what"
      check_rerun "$circuit" "$id-$try" "$what"
      return 0
    fi
    # Missed: the save ended first; start again without the saved files.
    wait "$cpid"
    stop_daemon
    rm -rf "$data"
    restart
  done
  bad "$what: never caught the daemon inside the save"
}

note "mode $mode: $circuits"
for circuit in $circuits; do
  stem=$(echo "$circuit" | tr ':^' '__')
  for r in $(seq 1 "$rounds"); do
    [ -z "$pid" ] || stop_daemon
    rm -rf "$data"
    restart
    # The PCE is saved first (the keys are made from it), then the keys.
    kill_mid_save "$data/pce/.*.pce.tmp-*" "kill mid-PCE-save ($circuit)" "$circuit" "pce-$stem-$r"
    stop_daemon
    rm -f "$data"/params/*
    restart
    kill_mid_save "$data/params/.*.params.tmp-*" "kill mid-key-save ($circuit)" "$circuit" "keys-$stem-$r"
  done
done
note "kills mid-save done"

# ---- 3: SIGKILL mid-proof with jobs queued ----

circuit=${circuits##* }
for r in $(seq 1 "$rounds"); do
  snapshot >"$tmp/snap.before"
  done0=$(metric cuzk_proofs_completed_total)
  "$bench" -a "$sock" --json batch --circuit "$circuit" --partitions 2 -c 200 -j 4 >"$tmp/batch-$r.json" 2>"$tmp/batch-$r.err" &
  cpid=$!
  # Killed once two proofs are done: the batch's other proofs are running or queued.
  end=$((SECONDS + 120))
  while [ "$(metric cuzk_proofs_completed_total)" -lt $((done0 + 2)) ] && [ "$SECONDS" -lt "$end" ]; do sleep 0.02; done
  sigkill_daemon
  rc=0
  wait "$cpid" || rc=$?
  [ "$rc" -ne 0 ] || bad "kill mid-proof: the batch client exited 0"
  python3 - "$tmp/batch-$r.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
# Every answer is a verified proof or an error: none completed without verifying, none lost.
# (The daemon had finished 2 when it was killed; their answers may have been lost with it.)
ok = (d["completed"] == d["verified"] == d["proofs"] and d["proofs"] + d["failed"] == d["count"]
      and d["proofs"] < d["count"])
print(f"kill mid-proof: {d['proofs']} proofs verified, {d['failed']} failed of {d['count']}")
if not ok:
    print("FAIL: kill mid-proof:", {k: d.get(k) for k in ("count", "proofs", "completed", "verified", "failed", "cancelled")})
sys.exit(0 if ok else 1)
PY
  restart
  check_old_or_new "$tmp/snap.before" "kill mid-proof"
  [ -z "$(temp_files)" ] || bad "kill mid-proof: temporary files: $(temp_files)"
  prove_ok "$circuit" "$tmp/after-proof-kill-$r.log"
done
note "kill mid-proof done"

# ---- 4: SIGKILL mid-params-load ----

# Whether the daemon has FILE open or mapped (the keys are read through a mapping); bash builtins
# only: the load takes a few ms at 2^11.
holds_open() {
  local f maps=
  for f in "/proc/$pid/fd/"*; do
    [[ "$f" -ef "$1" ]] && return 0
  done
  read -r -d '' maps <"/proc/$pid/maps"
  [[ "$maps" == *"$1"* ]]
}
# The daemon freshly restarted holds no keys; a preload opens the key file and logs srs_loaded at
# the end. Frozen while the file is open and srs_loaded not yet logged.
for r in $(seq 1 "$rounds"); do
  stop_daemon
  restart
  params=$(compgen -G "$data/params/*.params" | tail -1)
  snapshot >"$tmp/snap.before"
  caught=0
  for try in 1 2 3 4 5; do
    "$bench" -a "$sock" preload --circuit "$circuit" >"$tmp/preload.log" 2>&1 &
    cpid=$!
    while kill -0 "$cpid" 2>/dev/null; do
      holds_open "$params" || continue
      freeze
      if holds_open "$params" && ! grep -q "srs_loaded" "$tmp/daemon.log"; then
        caught=1
        break
      fi
      kill -CONT "$pid"
      break
    done
    [ "$caught" -eq 1 ] && break
    wait "$cpid"
    stop_daemon
    restart
  done
  if [ "$caught" -eq 1 ]; then
    note "kill mid-params-load: killed while loading $(basename "$params") (try $try)"
    sigkill_daemon
    wait "$cpid"
    restart
    check_old_or_new "$tmp/snap.before" "kill mid-params-load"
    "$bench" -a "$sock" preload --circuit "$circuit" >"$tmp/preload2.log" 2>&1 ||
      bad "kill mid-params-load: the keys do not load again: $(tail -2 "$tmp/preload2.log")"
    prove_ok "$circuit" "$tmp/after-load-kill-$r.log"
  else
    bad "kill mid-params-load: never caught the daemon loading $params"
  fi
done
note "kill mid-params-load done"

# ---- 5: a client killed mid-request ----

# The idle daemon's open fds: the fewest of 5 samples (calls' descriptors close a little after them).
fd_count() {
  local n best=
  for _ in 1 2 3 4 5; do
    n=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    [ -z "$best" ] || [ "$n" -lt "$best" ] && best=$n
    sleep 0.1
  done
  echo "$best"
}
prove_ok "$circuit" "$tmp/warm.log"
fds0=$(fd_count)
for r in $(seq 1 "$rounds"); do
  ended0=$(($(metric cuzk_proofs_completed_total) + $(metric 'cuzk_proofs_cancelled{proof_kind="generic"}')))
  "$bench" -a "$sock" single --circuit "$circuit" --partitions 4 --request-id "gone-$r" \
    --proof-out "$tmp/gone-$r.bin" >"$tmp/gone-$r.log" 2>&1 &
  cpid=$!
  end=$((SECONDS + 60))
  until [ "$(metric cuzk_running_jobs)" -ge 1 ] || ! kill -0 "$cpid" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; do
    sleep 0.01
  done
  kill -0 "$cpid" 2>/dev/null || bad "client gone: the client ended before its job was seen running"
  kill -KILL "$cpid"
  wait "$cpid" 2>/dev/null
  until [ "$(metric cuzk_running_jobs)" -eq 0 ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.05; done
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: the daemon died after a client left"; tail -20 "$tmp/daemon.log"; exit 1; }
  [ "$(metric cuzk_running_jobs)" -eq 0 ] || bad "client gone: its job is still running after 60 s"
  ended1=$(($(metric cuzk_proofs_completed_total) + $(metric 'cuzk_proofs_cancelled{proof_kind="generic"}')))
  [ "$ended1" -eq $((ended0 + 1)) ] || bad "client gone: its job neither completed nor was cancelled ($ended0 -> $ended1)"
  grep "job_finished job=gone-$r " "$tmp/daemon.log" | sed 's/.*\(status=[a-z]*\).*/client gone: the job ended with \1/' 
  [ ! -e "$tmp/gone-$r.bin" ] || bad "client gone: the killed client wrote a proof"
done
prove_ok "$circuit" "$tmp/after-gone.log"
fds1=$(fd_count)
[ "$fds1" -le "$fds0" ] || bad "client gone: the daemon's open fds grew from $fds0 to $fds1"
note "client gone: fds $fds0 -> $fds1"
stop_daemon

# ---- 6: a full disk ----

# With the daemon just started on an empty data directory where a file of ~200 KiB still fits and
# one of ~600 KiB does not: chain:2^13's PCE save (~600 KiB) and chain:2^10's key save (~600 KiB;
# its PCE fits) fail their requests with ERROR and the file's path, leave nothing under the final
# name and no temporary file, and the daemon keeps proving what fits (chain:2^6) and exits cleanly
# on SIGTERM.
check_full_disk() {
  local what=$1 error=$2 c want
  for c in chain:2^13 chain:2^10; do
    case $c in chain:2^13) want='pce/chain_8192\.pce' ;; *) want='params/chain_1024\.params' ;; esac
    if "$bench" -a "$sock" single --circuit "$c" --partitions 1 --proof-out "$tmp/full.bin" >"$tmp/full-$c.log" 2>&1; then
      bad "$what: a proof of $c whose $want save cannot fit succeeded"
    fi
    if ! grep -q "$error" "$tmp/full-$c.log" || ! grep -q "$want" "$tmp/full-$c.log"; then
      bad "$what: $c: no clear error ($error, the $want file): $(tail -2 "$tmp/full-$c.log")"
    fi
    kill -0 "$pid" 2>/dev/null || { echo "FAIL: $what: the daemon died"; tail -20 "$tmp/daemon.log"; exit 1; }
  done
  note "$what: the error for chain:2^10: $(grep -o "[^ ]*\.params[^ ]*: .*" "$tmp/full-chain:2^10.log" | head -1)"
  [ -z "$(temp_files)" ] || bad "$what: temporary files left: $(temp_files)"
  [ -z "$(find "$data/pce" -name '*8192*' 2>/dev/null)" ] || bad "$what: chain:2^13's PCE exists under a final name"
  [ -z "$(find "$data/params" -name '*1024*' 2>/dev/null)" ] || bad "$what: chain:2^10's keys exist under a final name"
  for p in "$data"/pce/*.pce; do
    "$cuzk" pce verify "$p" >/dev/null 2>&1 || bad "$what: $p does not verify"
  done
  prove_ok chain:2^6 "$tmp/full-small.log"
  stop_daemon
  note "$what done"
}

# A file size limit of 192 KiB on the daemon (ulimit -f: writes past it fail with EFBIG): no
# privileges needed, so it runs everywhere.
rm -rf "$data"
restart 192
check_full_disk "disk full (file size limit)" "File too large"

# A real full disk (ENOSPC): the data directory on a 384 KiB tmpfs, where chain:2^10's PCE and
# chain:2^6's files fit. Mounting needs root with CAP_SYS_ADMIN; without, this case is skipped (said
# so below) and the file size limit above stands in for it.
rm -rf "$data"
mkdir -p "$data"
why=
if [ "$(id -u)" -ne 0 ]; then
  why="not root"
elif ! out=$(mount -t tmpfs -o size=384k,mode=0755 cuzk-faults "$data" 2>&1); then
  why="mount -t tmpfs failed: ${out%%$'\n'*}"
else
  mounted=$data
  restart
  # The error says how much the file needs and how much is free: what the user has to free.
  check_full_disk "disk full (tmpfs, ENOSPC)" "MiB free on its file system (temporary file .*): No space left on device"
  umount "$data" && mounted=
  [ -z "$mounted" ] || bad "disk full (tmpfs): cannot unmount $mounted"
fi
[ -z "$why" ] || echo "NOTE: the full-disk case on a tmpfs (ENOSPC) was NOT run ($why); only the file size limit case ran"

finish "daemon.faults ($mode)"
