#!/usr/bin/env bash
# What an operator looks at, against one daemon (built-in chain circuits, metrics on loopback):
#   - status --watch: snapshots separated by blank lines when stdout is not a terminal, the screen
#     cleared with ANSI codes on one (script(1) gives it a terminal), --count, a batch's jobs and
#     busy prover seen while it runs, exit 0 on SIGINT, exit 1 and a message when the daemon goes
#     away;
#   - batch --timeline-svg: the picture checked against the CSV (tests/timeline_svg_check.py), and
#     an unwritable picture refused before any proof;
#   - the Grafana dashboard (deploy/grafana/cuzk.json): after proofs and a refused request, every
#     panel's query checked against the scraped GET /metrics (tests/grafana_check.py), and the
#     checker shown to catch a misspelt metric, label and value, a histogram queried by its bare
#     name, a query without the daemons' filter.
# Usage: operator_views_test.sh SRC_DIR PATH/TO/cuzk PATH/TO/cuzk-daemon PATH/TO/cuzk-bench
set -u
src=$1
shift
source "$(dirname "$0")/e2e_lib.sh" "$@"
circuit='chain:2^10'

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/cuzk.toml" <<EOF
[daemon]
metrics_listen = "127.0.0.1:$port"
[memory]
total_budget = "4GiB"
EOF
start_daemon
b=("$bench" -a "$sock")

# ---- status --watch, not on a terminal: successive snapshots, a blank line between them ----
run 0 "$tmp/watch-idle.out" "${b[@]}" status --watch 0.2 --count 3
[ "$(grep -c '^cuzk daemon .* (refresh [0-9]*, every 0.2 s' "$tmp/watch-idle.out")" -eq 3 ] ||
  { echo "FAIL: status --watch --count 3 printed other than 3 snapshots:"; cat "$tmp/watch-idle.out"; fail=1; }
[ "$(grep -c '^$' "$tmp/watch-idle.out")" -ge 2 ] && ! grep -q $'\033' "$tmp/watch-idle.out" ||
  { echo "FAIL: status --watch to a file: expected blank lines between snapshots, no ANSI codes"; fail=1; }
for what in '^queue by priority:' '^  critical ' '^provers:' '^  cpu ' '^operations: none in progress' \
  '^memory .* budget' '(+0 since the last refresh)'; do
  expect_in "$tmp/watch-idle.out" "$what" "status --watch"
done
# On a terminal: the screen cleared before each snapshot.
run 0 "$tmp/watch-tty.out" script -qec "${b[*]} status --watch 0.2 --count 2" /dev/null
[ "$(grep -c $'\033\[H\033\[2J' "$tmp/watch-tty.out")" -eq 2 ] ||
  { echo "FAIL: status --watch on a terminal did not clear the screen twice:"; cat -v "$tmp/watch-tty.out"; fail=1; }
run 2 "$tmp/usage.out" "${b[@]}" status --count 2
run 2 "$tmp/usage.out" "${b[@]}" --json status --watch

# ---- a batch with its timeline picture, watched while it runs ----
run 1 "$tmp/svg-unwritable.out" "${b[@]}" batch --circuit "$circuit" -c 1 --timeline-svg "$tmp/no-such-dir/t.svg"
expect_in "$tmp/svg-unwritable.out" "cannot write the timeline picture to $tmp/no-such-dir/t.svg" "batch --timeline-svg"
# Watched from before its start to its end, then stopped with Ctrl-C (SIGINT): exit code 0.
"${b[@]}" status --watch 0.1 >"$tmp/watch-busy.out" 2>&1 &
watch_pid=$!
run 0 "$tmp/batch.out" "${b[@]}" batch --circuit "$circuit" --partitions 3 -c 8 -j 3 --timeline "$tmp/t.csv" \
  --timeline-svg "$tmp/t.svg"
sleep 0.3
kill -INT "$watch_pid"
rc=0
wait "$watch_pid" || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: status --watch exited $rc after SIGINT, expected 0"; fail=1; }
expect_in "$tmp/watch-busy.out" '^  generic  *normal ' "status --watch during a batch (its jobs)"
expect_in "$tmp/watch-busy.out" '^  cpu  *1/1 ' "status --watch during a batch (the prover busy)"
expect_in "$tmp/watch-busy.out" '^proofs   8 completed' "status --watch after the batch"
python3 "$src/tests/timeline_svg_check.py" "$tmp/t.csv" "$tmp/t.svg" || fail=1
[ "$(grep -c ',partition,' "$tmp/t.csv")" -eq 24 ] || { echo "FAIL: expected 24 partitions in $tmp/t.csv"; fail=1; }

# ---- the dashboard against the scraped metrics ----
run 1 "$tmp/refused.out" "${b[@]}" single --circuit nosuch:3  # a refused request, for its counter
python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "http://127.0.0.1:$port/metrics" >"$tmp/metrics.txt" || { echo "FAIL: GET /metrics"; fail=1; }
expect_in "$tmp/metrics.txt" '^cuzk_requests_refused_total{code="INVALID_ARGUMENT"} 1$' "metrics"
expect_in "$tmp/metrics.txt" '^cuzk_proofs_completed{proof_kind="generic"} 8$' "metrics"
dashboard="$src/deploy/grafana/cuzk.json"
python3 "$src/tests/grafana_check.py" "$dashboard" "$tmp/metrics.txt" || fail=1
# The checker catches each kind of dead query (FROM and TO as they appear in the JSON text).
mutant() { # NAME FROM TO EXPECTED-MESSAGE
  python3 -c 'import sys; t = open(sys.argv[1]).read(); assert sys.argv[2] in t, sys.argv[2]
open(sys.argv[4], "w").write(t.replace(sys.argv[2], sys.argv[3], 1))' "$dashboard" "$2" "$3" "$tmp/$1.json" ||
    { echo "FAIL: mutant $1: '$2' is not in the dashboard"; fail=1; return; }
  run 1 "$tmp/$1.out" python3 "$src/tests/grafana_check.py" "$tmp/$1.json" "$tmp/metrics.txt"
  expect_in "$tmp/$1.out" "$4" "grafana_check on mutant $1"
}
mutant metric 'cuzk_running_jobs{' 'cuzk_runing_jobs{' 'metric cuzk_runing_jobs is not exported'
mutant by-label 'sum by (proof_kind)' 'sum by (kind)' 'by/without/on label kind is on none'
mutant matcher-label ', backend=\"cpu\"' ', backnd=\"cpu\"' 'has no label backnd'
mutant value ', backend=\"cpu\"' ', backend=\"gpu:7\"' 'matches no series'
mutant histogram 'cuzk_stage_seconds_bucket{' 'cuzk_stage_seconds{' 'cuzk_stage_seconds is a histogram'
mutant unfiltered 'cuzk_memory_waiters{instance=~\"$instance\"}' 'cuzk_memory_waiters' 'does not filter on instance'
mutant legend '"legendFormat": "{{stage}}"' '"legendFormat": "{{stg}}"' "legend's {{stg}}"

# ---- status --watch ends with a message when the daemon goes away ----
"${b[@]}" status --watch 0.2 >"$tmp/watch-lost.out" 2>"$tmp/watch-lost.err" &
watch_pid=$!
sleep 0.5
stop_daemon
rc=0
timeout 20 tail --pid="$watch_pid" -f /dev/null
wait "$watch_pid" || rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: status --watch exited $rc when the daemon went away, expected 1"; fail=1; }
expect_in "$tmp/watch-lost.err" "lost the daemon at $sock after [0-9]* refresh" "status --watch, daemon gone"

finish operator_views
