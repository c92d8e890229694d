#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/, built by a CUZK_FUZZ=ON build) for SECONDS each (default 60),
# JOBS at a time, on its seed corpus fuzz/corpus/<target>/ (read only: what the run adds goes to a
# temporary directory). Prints one line per target (runs, exec/s, corpus units added) and exits 1 when
# a target crashed, leaked, hung or ran out of memory; the input that did it is kept and its path
# printed: fix the parser, then add the input to fuzz/corpus/<target>/ as a regression test.
# scripts/run-tests.sh runs it for 20 s per target in CI.
#   bench/fuzz-all.sh [SECONDS]      env: BUILD_DIR (build-asan), JOBS (nproc), TARGETS (all)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${BUILD_DIR:-build-asan}
jobs=${JOBS:-$(nproc)}
targets=${TARGETS:-$(cd fuzz/corpus && ls -d fuzz_*)}
work=$(mktemp -d /tmp/cuzk-fuzz.XXXXXX)
# ASan/UBSan report and abort; libFuzzer keeps the input. -timeout: one input over 10 s is a hang.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 bin="$build/fuzz/$1"
  mkdir -p "$work/$t/new" "$work/$t/artifacts"
  if [ ! -x "$bin" ]; then
    echo "missing $bin (configure with -DCUZK_FUZZ=ON)" >"$work/$t/log"
    echo 2 >"$work/$t/rc"
    return
  fi
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/$t/artifacts/" "$work/$t/new" "fuzz/corpus/$t" >"$work/$t/log" 2>&1
  echo $? >"$work/$t/rc"
}

declare -A pid
for t in $targets; do
  run_one "$t" &
  pid[$t]=$!
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
done
# Each target until its exit status is written: a plain `wait` after the `wait -n` calls once
# returned while the last target was still fuzzing (bash 5.2.15), and the summary then found no
# exit status and failed the run.
for t in $targets; do
  wait "${pid[$t]}" 2>/dev/null
  while [ ! -e "$work/$t/rc" ] && kill -0 "${pid[$t]}" 2>/dev/null; do sleep 0.2; done
done

fail=0
printf '%-20s %10s %8s %6s  %s\n' target runs exec/s added result
for t in $targets; do
  rc=$(cat "$work/$t/rc" 2>/dev/null || echo none)
  stat() { sed -n "s/^stat::$1: *//p" "$work/$t/log" | tail -1; }
  added=$(find "$work/$t/new" -type f | wc -l)
  if [ "$rc" = 0 ]; then
    result=ok
  else
    fail=1
    result="FAILED (rc $rc): $(ls "$work/$t/artifacts"/* 2>/dev/null | tr '\n' ' ')log $work/$t/log"
  fi
  printf '%-20s %10s %8s %6s  %s\n' "$t" "$(stat number_of_executed_units)" "$(stat average_exec_per_sec)" "$added" "$result"
done
if [ "$fail" = 0 ]; then
  rm -rf "$work"
else
  for t in $targets; do
    [ "$(cat "$work/$t/rc" 2>/dev/null)" = 0 ] || { echo "== $t"; grep -m1 -A25 "ERROR\|==ERROR\|runtime error\|deadly signal\|timeout\|out-of-memory" "$work/$t/log"; }
  done
fi
exit "$fail"
