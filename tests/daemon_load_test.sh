#!/usr/bin/env bash
# Load: small proofs from 8 concurrent clients (cuzk-bench processes) through one daemon, mixing
# circuits (the built-in chain:2^8 and the snarkjs .zkey mul3; with `full`, 2 KiB PoRep C2s too),
# priorities (--priority lists), cancels (--cancel-every) and AwaitProof timeouts
# (--await-timeout-ms); cuzk-bench verifies every proof. Checks: no failed or invalid proof, every
# cancel accounted for, the daemon's RSS after the warm-up within 5 % of its end value, no growth
# of its threads or open fds. Then the same load against a daemon whose memory budget is tight
# (the peak of one proof at a time plus a quarter of a partition): the budget must hold work back
# (memory waits > 0) with still no failure, no invalid proof, no OOM, and a clean exit. One summary
# line per daemon.
# Usage: daemon_load_test.sh ci|full SRC_DIR CUZK CUZK_DAEMON CUZK_BENCH
#   ci:   the CI variant: 240 proofs per daemon (+ 48 of warm-up), no PoRep keys.
#   full: 1,000 proofs per daemon (+ ~200 of warm-up), 8 of them 2 KiB PoRep C2s, whose test-only
#         keys, PCE and sealed C1 are kept in $CUZK_LOAD_CACHE when it is set (made once: ~3 min
#         on the 2-core machine with other jobs on it), else made in the scratch directory.
set -u
mode=$1
src=$2
shift 2
source "$(dirname "$0")/e2e_lib.sh" "$@"
if [ "$mode" != ci ] && [ "$mode" != full ]; then
  echo "usage: daemon_load_test.sh ci|full SRC_DIR CUZK CUZK_DAEMON CUZK_BENCH"
  exit 2
fi
cache=${CUZK_LOAD_CACHE:-$tmp/cache}
mkdir -p "$cache/params" "$cache/pce"
wtns="$src/tests/circom/mul3.wtns"
c1="$cache/c1-2KiB.json"
if [ "$mode" = full ] && [ ! -s "$c1" ]; then
  run 0 "$tmp/seal.log" "$cuzk" seal --sector-size 2KiB --random --rng-seed 11 --wrapper --out "$c1.tmp"
  mv "$c1.tmp" "$c1"
fi

write_config() { # BUDGET ("auto" or a byte count)
  cat >"$tmp/cuzk.toml" <<EOF
[memory]
total_budget = $1
[srs]
allow_test_keys = true
param_dir = "$cache/params"
test_keys = "file"
[pce]
dir = "$cache/pce"
[[circuits]]
id = "mul3"
zkey = "$src/tests/zkey/mul3.zkey"
EOF
}

# gRPC's own thread pools (its executor grows with the load it has seen, up to a bound of its own):
# counted apart from the daemon's threads and the sync server's per-call ones.
grpc_pools='^(default-executo|event_engine|resolver-execut|grpc_global_tim|timer_manager)$'
# RSS (KiB), threads (without gRPC's pools), gRPC pool threads and open fds of the idle daemon: the
# fewest of 5 samples over a second (per-call threads end a little after their calls), the last RSS.
proc_stats() {
  local rss thr pool fds t p f
  for _ in 1 2 3 4 5; do
    sleep 0.2
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    p=$(cat "/proc/$pid/task/"*/comm 2>/dev/null | grep -cE "$grpc_pools")
    t=$(($(awk '/^Threads:/ {print $2}' "/proc/$pid/status") - p))
    f=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    [ -z "${thr:-}" ] || [ "$t" -lt "$thr" ] && thr=$t
    [ -z "${pool:-}" ] || [ "$p" -lt "$pool" ] && pool=$p
    [ -z "${fds:-}" ] || [ "$f" -lt "$fds" ] && fds=$f
  done
  echo "$rss $thr $pool $fds"
  # The threads by name, for a message if their number grew.
  cat "/proc/$pid/task/"*/comm 2>/dev/null | sort | uniq -c | tr -s ' \n' ' ' >"$tmp/threads.$1"
}
status_field() { "$bench" -a "$sock" --json status | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
metric() { "$bench" -a "$sock" metrics | awk -v m="$1" '$1 == m {printf "%d\n", $2}'; }

# The clients of one load, 8 in all: one cuzk-bench batch per line, "NAME CLIENTS COUNT ARGS":
#   chain-mix:   every priority, every 8th proof cancelled 0 to 20 ms after its submission;
#   zkey-await:  AwaitProof with 5 ms timeouts, awaited again after each TIMEOUT;
#   chain-await (ci):  3 ms await timeouts and every 5th proof cancelled at once;
#   porep (full):      2 KiB PoRep C2s, normal and critical.
groups() {
  if [ "$mode" = full ]; then
    echo "chain-mix 4 600 --circuit chain:2^8 --priority low,normal,high,critical --cancel-every 8 --cancel-delay-ms 20"
    echo "zkey-await 2 392 --circuit mul3 --wtns $wtns --priority normal,high --await-timeout-ms 5"
    echo "porep 2 8 --c1 $c1 --priority normal,critical"
  else
    echo "chain-mix 4 120 --circuit chain:2^8 --priority low,normal,high,critical --cancel-every 8 --cancel-delay-ms 20"
    echo "zkey-await 2 60 --circuit mul3 --wtns $wtns --priority normal,high --await-timeout-ms 5"
    echo "chain-await 2 60 --circuit chain:2^8 --priority high,low --await-timeout-ms 3 --cancel-every 5"
  fi
}

# run_load LABEL DIVISOR: every group at once, each with COUNT / DIVISOR proofs (at least its
# clients, so that a warm-up runs as many of each kind at once as the load: 2 PoRep partitions
# side by side grow the heap more than one); waits for all of them; each group's JSON in
# $tmp/LABEL.GROUP.json.
run_load() {
  local label=$1 div=$2 name j count args
  local pids=()
  while read -r name j count args; do
    count=$((count / div))
    [ "$count" -lt "$j" ] && count=$j
    # shellcheck disable=SC2086 # args are words
    "$bench" -a "$sock" --json batch -c "$count" -j "$j" $args >"$tmp/$label.$name.json" 2>"$tmp/$label.$name.err" &
    pids+=($!)
  done < <(groups)
  for p in "${pids[@]}"; do wait "$p"; done
}

# check_load LABEL: every group's proofs verified, none failed, the asked-for cancels accounted for;
# prints the totals "proofs failed cancelled cancel_requested await_timeouts".
check_load() {
  python3 - "$tmp/$1".*.json <<'PY'
import json, sys
keys = ["proofs", "failed", "cancelled", "cancel_requested", "await_timeouts"]
tot = [0] * len(keys)
bad = []
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1][:-5]
    try:
        d = json.load(open(path))
    except ValueError as e:
        err = open(path[:-5] + ".err").read()[-2000:]
        bad.append(f"{name}: no JSON from cuzk-bench ({e}); its stderr: {err}")
        continue
    ok = (d.get("exit_code") == 0 and d.get("failed") == 0 and d.get("verified") == d.get("proofs")
          and d.get("proofs", 0) + d.get("cancelled", 0) == d.get("count"))
    if not ok:
        bad.append(f"{name}: exit {d.get('exit_code')}, {d.get('proofs')} proofs, {d.get('verified')} verified, "
                   f"{d.get('cancelled')} cancelled, {d.get('failed')} failed of {d.get('count')}: "
                   f"{d.get('failures', d.get('error'))}")
    for i, k in enumerate(keys):
        tot[i] += d.get(k, 0)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
print(*tot)
sys.exit(1 if bad else 0)
PY
}

# One daemon: single proofs of each circuit one at a time (the budget's peak for one proof at a
# time: $single_peak, what resident keys and PCEs hold: $resident), a warm-up at full concurrency,
# then the load. Sets $summary.
one_daemon() {
  local label=$1
  start_daemon
  "$bench" -a "$sock" --json batch -c 2 -j 1 --circuit mul3 --wtns "$wtns" >"$tmp/$label-single.out" 2>&1 ||
    { echo "FAIL: $label: single mul3 proofs"; tail -5 "$tmp/$label-single.out"; fail=1; }
  if [ "$mode" = full ]; then
    "$bench" -a "$sock" --json batch -c 1 -j 1 --c1 "$c1" >>"$tmp/$label-single.out" 2>&1 ||
      { echo "FAIL: $label: a single PoRep proof"; tail -5 "$tmp/$label-single.out"; fail=1; }
  fi
  # chain last: the largest partition of ci, so that the peak is resident + that partition.
  "$bench" -a "$sock" --json batch -c 2 -j 1 --circuit chain:2^8 >>"$tmp/$label-single.out" 2>&1 ||
    { echo "FAIL: $label: single chain proofs"; tail -5 "$tmp/$label-single.out"; fail=1; }
  single_peak=$(metric cuzk_memory_peak_bytes)
  resident=$(status_field memory_used_bytes)
  run_load "$label-warmup" 5
  check_load "$label-warmup" >/dev/null || fail=1
  read -r rss0 thr0 pool0 fds0 < <(proc_stats warm)
  local waits0 waits1 t0 t1 totals
  waits0=$(status_field memory_waits)
  t0=$(date +%s.%N)
  run_load "$label" 1
  t1=$(date +%s.%N)
  totals=$(check_load "$label") || fail=1
  read -r rss1 thr1 pool1 fds1 < <(proc_stats end)
  waits1=$(status_field memory_waits)
  read -r proofs failed cancelled asked timeouts <<<"$totals"
  waits=$((waits1 - waits0))
  peak=$(metric cuzk_memory_peak_bytes)
  limit=$(status_field memory_limit_bytes)
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: $label: the daemon died"; tail -20 "$tmp/daemon.log"; exit 1; }
  stop_daemon
  summary=$(printf '%s: %s proofs, %s failed, %s cancelled (of %s asked), %s await timeouts in %.1f s; RSS %d MiB after warm-up, %d MiB at the end; threads %s -> %s (+ gRPC pools %s -> %s), fds %s -> %s; budget %d KiB, peak %d KiB, %s waits' \
    "$label" "$proofs" "$failed" "$cancelled" "$asked" "$timeouts" "$(awk "BEGIN {print $t1 - $t0}")" $((rss0 >> 10)) $((rss1 >> 10)) \
    "$thr0" "$thr1" "$pool0" "$pool1" "$fds0" "$fds1" $((limit >> 10)) $((peak >> 10)) "$waits")
  echo "$summary"
  [ "$cancelled" -ge 1 ] || { echo "FAIL: $label: no cancel took effect"; fail=1; }
  [ "$timeouts" -ge 1 ] || { echo "FAIL: $label: no AwaitProof timed out"; fail=1; }
  # 5 % of the end value, both ways (a shrinking RSS after warm-up means the warm-up did not settle).
  local diff=$((rss1 > rss0 ? rss1 - rss0 : rss0 - rss1))
  [ $((diff * 20)) -le "$rss1" ] || { echo "FAIL: $label: RSS moved by $diff KiB, more than 5 % of $rss1 KiB"; fail=1; }
  [ "$thr1" -le "$thr0" ] || {
    echo "FAIL: $label: threads grew from $thr0 to $thr1: $(cat "$tmp/threads.warm") -> $(cat "$tmp/threads.end")"
    fail=1
  }
  [ "$fds1" -le "$fds0" ] || { echo "FAIL: $label: open fds grew from $fds0 to $fds1"; fail=1; }
  # gRPC bounds its executor by the core count; far more would be a leak all the same.
  [ "$pool1" -le $((4 * $(nproc) + 8)) ] || { echo "FAIL: $label: $pool1 gRPC pool threads"; fail=1; }
}

write_config '"auto"'
one_daemon load
tight=$((single_peak + (single_peak - resident) / 4))
write_config "$tight"
one_daemon load-tight-budget
[ "$waits" -ge 1 ] || { echo "FAIL: the tight budget ($tight bytes) never held work back"; fail=1; }
[ "$peak" -le "$tight" ] || { echo "FAIL: the budget's peak $peak exceeds its limit $tight"; fail=1; }
finish daemon.load
