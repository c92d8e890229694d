#!/usr/bin/env bash
# Soak: 1,000 small proofs from 8 concurrent clients against one daemon, every proof verified by
# cuzk-bench, and the daemon's resident memory stable between the first 200 and the next 800
# (no leak per request). Then a SIGTERM must drain and exit 0.
# Usage: daemon_soak_test.sh CUZK_DAEMON CUZK_BENCH
set -euo pipefail
daemon=$1
bench=$2
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
sock="unix://$tmp/run/cuzk.sock"
"$daemon" --listen "$sock" --data-dir "$tmp/data" >"$tmp/out" 2>"$tmp/log" &
pid=$!
for _ in $(seq 1 300); do
  grep -q '^listening' "$tmp/out" && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/log"; echo "daemon exited early"; exit 1; }
  sleep 0.1
done
grep -q '^listening' "$tmp/out" || { cat "$tmp/log"; echo "daemon did not start"; exit 1; }

json_get() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

run_batch() {
  local count=$1
  local out
  out=$("$bench" -a "$sock" --json batch --circuit chain:2^8 -c "$count" -j 8)
  local proofs failed verified
  proofs=$(echo "$out" | json_get "['proofs']")
  failed=$(echo "$out" | json_get "['failed']")
  verified=$(echo "$out" | json_get "['verified']")
  echo "batch of $count: proofs=$proofs failed=$failed verified=$verified" \
    "throughput=$(echo "$out" | json_get "['throughput_proofs_per_min']")/min"
  [ "$proofs" = "$count" ] && [ "$failed" = 0 ] && [ "$verified" = "$count" ] || {
    echo "$out"
    exit 1
  }
}

run_batch 200
rss1=$("$bench" -a "$sock" --json status | json_get "['daemon_rss_bytes']")
run_batch 800
rss2=$("$bench" -a "$sock" --json status | json_get "['daemon_rss_bytes']")
echo "daemon RSS after 200 proofs: $((rss1 >> 20)) MiB; after 1000: $((rss2 >> 20)) MiB"
# Finished jobs are kept for AwaitProof (scheduler.completed_retention): a few hundred bytes each.
if [ "$rss2" -gt $((rss1 + (32 << 20))) ]; then
  echo "RSS grew by more than 32 MiB over 800 proofs: a leak?"
  exit 1
fi

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || { tail -20 "$tmp/log"; echo "daemon exit code $rc after SIGTERM"; exit 1; }
echo "soak passed"
