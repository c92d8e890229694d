#!/usr/bin/env bash
# Our GPU kernels next to sppark's (the GPU library behind supraseal's C2 prover) in ONE device
# command, so that the ratios compare two programs on the same machine at the same moment (issue
# #22 item 1). No third-party code is committed: the peer is built from its own sources, placed in
# the git-ignored .devbuild/ as ../shared/anchor-bench/README.md describes.
#
#   bash bench/device-vs-sppark.sh prepare   # development machine, once: copies the anchor
#       harness (../shared/anchor-bench) to .devbuild/anchor-bench, extracts sppark and blst from
#       git checkouts (SPPARK_GIT, BLST_GIT: directories holding a git repository) and builds the
#       peer with the local nvcc (sm_90); ~10 CPU-minutes.
#   bash bench/device-vs-sppark.sh run       # device machine (H200): the peer's G1 MSM and NTT
#       rows, then ours (bench_gpu_msm, bench_gpu_ntt from .devbuild/bench), then one table of
#       ours/peer per row (bench/vs_sppark.py). Logs in $OUT. ~4 minutes of device time.
#
# Inputs: both sides draw uniformly random scalars below r and distinct bases (the peer (i+1)·G,
# ours the library's test bases), the same sizes, data resident on the device; the numbers are the
# same kind (median of MSM_REPS / NTT_REPS runs). Knobs: MSM_LGS (default "20 22 24 26"),
# NTT_MAX_LOG (27), MSM_REPS (5), NTT_REPS (5); ours runs G1 2^20, 2^22, ... up to the largest of
# MSM_LGS. PROFILE=1 adds Nsight Compute sections (ncu, clocks
# left alone) of our three NTT pass kernels of one forward transform at 2^NTT_MAX_LOG and of the
# MSM bucket accumulation at the largest MSM size, in $OUT/ncu_*.txt: where the kernels lose
# against the counted floors (docs/gpu-ntt.md, docs/gpu-msm.md).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${CUZK_DEVBUILD:-.devbuild}
A=$B/anchor-bench
OUT=${OUT:-/tmp/cuzk-out}
MSM_LGS=${MSM_LGS:-20 22 24 26}
NTT_MAX_LOG=${NTT_MAX_LOG:-27}
MSM_REPS=${MSM_REPS:-5}
NTT_REPS=${NTT_REPS:-5}

prepare() {
  local src=${ANCHOR_SRC:-../shared/anchor-bench}
  : "${SPPARK_GIT:?set SPPARK_GIT to a git checkout of supranational/sppark}"
  : "${BLST_GIT:?set BLST_GIT to a git checkout of supranational/blst}"
  rm -rf "$A"
  mkdir -p "$A/third_party/sppark" "$A/third_party/blst"
  cp -r "$src"/. "$A"/
  chmod -R u+w "$A"
  git -C "$SPPARK_GIT" archive HEAD ec ff msm ntt util LICENSE | tar -x -C "$A/third_party/sppark"
  git -C "$BLST_GIT" archive HEAD src build bindings LICENSE | tar -x -C "$A/third_party/blst"
  printf 'sppark %s\nblst %s\n' "$(git -C "$SPPARK_GIT" rev-parse HEAD)" "$(git -C "$BLST_GIT" rev-parse HEAD)" \
    >"$A/third_party/PROVENANCE.txt"
  bash "$A/build.sh"
}

run() {
  mkdir -p "$OUT"
  export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
  { date -u; nproc; nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader; } |
    tee "$OUT/machine.txt"
  [ -x "$A/build/sppark_bench" ] || { echo "no $A/build/sppark_bench: run '$0 prepare' first" >&2; exit 2; }
  [ -x "$B/bench/bench_gpu_msm" ] && [ -x "$B/bench/bench_gpu_ntt" ] ||
    { echo "no $B/bench/bench_gpu_{msm,ntt}: build them (CUZK_BUILD_BENCH=ON) and carry them" >&2; exit 2; }
  local ntt_lgs="" lg max_msm=0
  for ((lg = 20; lg <= NTT_MAX_LOG; ++lg)); do ntt_lgs+="$lg "; done
  for lg in $MSM_LGS; do ((lg > max_msm)) && max_msm=$lg; done
  echo "== peer: sppark (provenance: $(tr '\n' ' ' <"$A/third_party/PROVENANCE.txt"))"
  # The build stamp was written where it was built; the binary is what we carried, so run it
  # directly rather than through run.sh (which would rebuild on a hash mismatch).
  MSM_LGS="$MSM_LGS" NTT_LGS="$ntt_lgs" MSM_REPS="$MSM_REPS" NTT_REPS="$NTT_REPS" \
    "$A/build/sppark_bench" >"$OUT/sppark.txt" 2>&1
  echo "== ours: bench_gpu_msm $max_msm 0 $MSM_REPS, bench_gpu_ntt --max-log $NTT_MAX_LOG --reps $NTT_REPS"
  "$B/bench/bench_gpu_msm" "$max_msm" 0 "$MSM_REPS" >"$OUT/ours_msm.txt" 2>&1
  "$B/bench/bench_gpu_ntt" --max-log "$NTT_MAX_LOG" --reps "$NTT_REPS" --matvec none >"$OUT/ours_ntt.txt" 2>&1
  [ "${PROFILE:-0}" = 1 ] && profile "$max_msm"
  python3 bench/vs_sppark.py --peer "$OUT/sppark.txt" --msm "$OUT/ours_msm.txt" --ntt "$OUT/ours_ntt.txt" |
    tee "$OUT/vs_sppark.txt"
}

# Nsight Compute on our kernels (after the timed runs: profiling replays each kernel many times).
profile() {
  local max_msm=$1 skip=0 lg s sections=()
  command -v ncu >/dev/null || { echo "ncu not found: no profile" | tee "$OUT/ncu_none.txt"; return 0; }
  for s in SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats \
    SchedulerStats; do sections+=(--section "$s"); done
  echo "== ncu: ntt_pass_kernel x3 at 2^$NTT_MAX_LOG"
  ncu --clock-control none "${sections[@]}" --kernel-name regex:ntt_pass_kernel --launch-count 3 \
    "$B/bench/bench_gpu_ntt" --min-log "$NTT_MAX_LOG" --max-log "$NTT_MAX_LOG" --reps 1 --matvec none \
    >"$OUT/ncu_ntt.txt" 2>&1 || echo "ncu on the NTT failed (see ncu_ntt.txt)"
  # bench_gpu_msm runs 2^20, 2^22, ... up to the largest, each once to warm up and then `runs` (1)
  # times: two accumulations per smaller size to skip.
  for ((lg = 20; lg < max_msm; lg += 2)); do skip=$((skip + 2)); done
  echo "== ncu: accumulate_kernel at 2^$max_msm (skipping $skip launches)"
  ncu --clock-control none "${sections[@]}" --kernel-name regex:accumulate_kernel --launch-skip "$skip" \
    --launch-count 1 "$B/bench/bench_gpu_msm" "$max_msm" 0 1 >"$OUT/ncu_msm.txt" 2>&1 ||
    echo "ncu on the MSM failed (see ncu_msm.txt)"
}

case "${1:-run}" in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
