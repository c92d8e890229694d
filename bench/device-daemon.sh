#!/usr/bin/env bash
# Runs on the device machine (16-core host of the H200) from the repository root, with cuzk,
# cuzk-daemon and cuzk-bench built on the development machine and carried in .devbuild/ (their
# gRPC/protobuf/spdlog/toml++ libraries in .devbuild/lib). Measures the daemon with cuzk-bench
# against a daemon it spawns:
#   overhead     a 16-constraint circuit, one request in flight: latency = gRPC + scheduling +
#                a proof that costs well under a millisecond of arithmetic;
#   throughput   2^20-constraint circuits, 4 partitions per request, 2 requests in flight:
#                proofs/min, latency, per-stage means, prover utilization, peak RSS, timeline;
#   lookahead    the same with a deeper pipeline (lookahead 4, 4 synthesis workers): peak RSS.
# JSON results and timelines go to $OUT.
set -u
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; } | tee "$OUT/daemon-machine.txt"
data=$(mktemp -d)
bench() { "$B/apps/cuzk-bench/cuzk-bench" --spawn-daemon "$B/apps/cuzk-daemon/cuzk-daemon" --data-dir "$data" "$@"; }
summary() { python3 "$(dirname "$0")/batch_summary.py" "$1"; }
fails=0
run() {
  local name=$1
  shift
  if bench --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"; then summary "$OUT/$name.json"; else
    echo "FAIL $name"; tail -20 "$OUT/$name.err"; fails=$((fails + 1)); fi
}
run overhead batch --circuit chain:2^4 -c 300 -j 1 --warmup 20
run overhead-j8 batch --circuit chain:2^4 -c 1000 -j 8 --warmup 20
K=${K:-20}
for c in filecoin-like:2^$K chain:2^$K; do
  tag=${c%%:*}
  run "batch-$tag-$K" batch --circuit "$c" --partitions 4 -c 6 -j 2 --warmup 1 --timeline "$OUT/timeline-$tag-$K.csv"
done
cat >"$data/deep.toml" <<EOF
[synthesis]
workers = 4
lookahead = 4
EOF
run batch-chain-$K-lookahead4 --daemon-arg=--config="$data/deep.toml" batch --circuit chain:2^$K --partitions 4 -c 6 -j 2 \
  --warmup 1
rm -rf "$data"
echo "failures: $fails"
