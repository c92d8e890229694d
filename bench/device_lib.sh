# Shared by the bench/device-*-32g.sh scripts (sourced, not run): the binaries in .devbuild/, a
# daemon started in its own session on a unix socket under the data dir, and the small reports the
# scripts print. Before sourcing, set D (the data dir); B, OUT and SIZE have defaults here.
B=${CUZK_DEVBUILD:-.devbuild}
OUT=${OUT:-/tmp/cuzk-out}
SIZE=${SIZE:-32GiB}
mkdir -p "$OUT" "$D"
export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
SOCK=unix://$D/cuzk.sock
fails=0

bench() { "$B/apps/cuzk-bench/cuzk-bench" -a "$SOCK" --connect-timeout 60 "$@"; }
daemon_pid() { cat "$D/daemon.pid" 2>/dev/null; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

# start_daemon CONFIG_TEXT: the config written to $D/cuzk.toml and a daemon started on it that
# outlives the calling command (setsid), so a later command finds its keys resident; returns once
# its socket exists.
start_daemon() {
  printf '%s' "$1" >"$D/cuzk.toml"
  rm -f "$D/cuzk.sock"
  setsid nohup "$B/apps/cuzk-daemon/cuzk-daemon" --config "$D/cuzk.toml" --data-dir "$D" --listen "$SOCK" \
    --pid-file "$D/daemon.pid" >"$D/daemon.log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do [ -S "$D/cuzk.sock" ] && return 0; sleep 0.5; done
  fail "the daemon did not open its socket in 60 s"; tail -5 "$D/daemon.log"
}

# stop_daemon: SIGTERM, then waits for the process to go (its memory is needed by the next one).
stop_daemon() {
  local p
  p=$(daemon_pid)
  [ -n "$p" ] || return 0
  kill "$p" 2>/dev/null
  for _ in $(seq 1 120); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
  rm -f "$D/daemon.pid"
}

# mem_line: the daemon's peak and current RSS and the host's memory.
mem_line() {
  local p
  p=$(daemon_pid)
  [ -n "$p" ] && grep -E "VmHWM|VmRSS" "/proc/$p/status" | tr -s ' ' | tr '\n' ' '
  free -g | awk '/Mem:/ {print "host used " $3 " GiB, available " $7 " GiB"}'
}

# single_line JSON LABEL: one line from a `cuzk-bench --json single` result.
single_line() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['status'], 'verified', d.get('verified'), 'client', d['client_wall_ms'], 'ms', d['timings_ms'])" "$1" "$2"
}

# gpu_sampler_start / gpu_sampler_stop: nvidia-smi every 200 ms into $OUT/gpu.csv, then a summary
# line (the fraction of samples with the GPU busy, its mean utilization, the peak memory).
gpu_sampler_start() {
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 200 >"$OUT/gpu.csv" 2>/dev/null &
  GPU_SAMPLER=$!
}
gpu_sampler_stop() {
  kill "${GPU_SAMPLER:-}" 2>/dev/null
  python3 - "$OUT/gpu.csv" <<'EOF' | tee "$OUT/gpu-summary.txt"
import sys
rows = [l.split(',') for l in open(sys.argv[1]) if l.count(',') == 2]
u = [float(r[1].strip().split()[0]) for r in rows]
m = [float(r[2].strip().split()[0]) for r in rows]
busy = sum(1 for x in u if x > 0) / max(1, len(u))
print(f"gpu samples {len(u)}: busy (util > 0) {busy:.1%}, mean util {sum(u)/max(1,len(u)):.1f} %, peak memory {max(m or [0])/1024:.1f} GiB")
EOF
}
