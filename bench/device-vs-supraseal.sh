#!/usr/bin/env bash
# supraseal's C2 prover (supranational/supra_seal c2/) and ours on the same GPU, the same TEST-ONLY
# key and the same PoRep partitions, in one device command per sector size: every proof of both
# checked by our verifier, the two compared byte for byte (same r, s), per-partition times, peak
# GPU memory and host RSS (docs/supraseal-anchor.md). No third-party code is committed: supra_seal,
# sppark and blst are extracted from git repositories into the git-ignored .devbuild/supraseal/src
# at the commits pinned below and compiled into bench_vs_supraseal (ours: bench/bench_vs_supraseal.cpp,
# bench/supraseal/supraseal_shim.{h,cu}).
#
#   bash bench/device-vs-supraseal.sh prepare     # development machine, once (~40-60 CPU-minutes
#       cold: our libraries in a GCC Release build with sm_90 code, their sources): needs
#       SUPRASEAL_GIT, SPPARK_GIT, BLST_GIT (git directories, bare mirrors or checkouts holding the
#       pinned commits); writes .devbuild/supraseal/{src,bin,lib}; the build directory is
#       $SUPRASEAL_BUILD (build-supraseal). Carry .devbuild/supraseal/bin and .devbuild/supraseal/lib.
#   bash bench/device-vs-supraseal.sh run         # device machine (one GPU): for each of SIZES
#       (default 512MiB; 32GiB after it, or alone: SIZES=32GiB) the TEST-ONLY key made on the GPU
#       (`bench_vs_supraseal setup`, the library call behind `cuzk setup`), then `bench_vs_supraseal
#       run`: our prover (OURS) on max-circuits partitions, supraseal with 1, 2 and max-circuits
#       partitions per call. The key file is deleted after each size (32 GiB: 47.4 GB of the 64 GiB
#       disk). Results in $OUT: vs_supraseal.md (the table), summary.txt, logs.tar.gz (JSON lines
#       of every measurement, the logs, the proofs).
#   bash bench/device-vs-supraseal.sh cpu-check   # development machine, no GPU: SIZE (512MiB) key
#       made on the CPU (PARAMS, kept for the next call), then `bench_vs_supraseal cpu-check`.
#
# Knobs (run): SIZES, DATA (/tmp/cuzk-supra: the key files), COUNTS (1,2,max), MAX_CIRCUITS (auto:
# what --budget-gib allows, at most 10), BUDGET_GIB (112), REPS (3 at 512MiB, 1 at 32GiB), WARMUP
# (1), OURS (resident | streamed: the key pinned on the host, bases streamed | none), OURS_SLOTS (2),
# OURS_CAP_GIB (the streamed prover's device memory cap; 0: the card's free memory),
# NO_SUPRASEAL=1, SEED (1), SETUP_LIMIT / RUN_LIMIT (seconds per step; the defaults fit one size
# per 600 s command: 512 MiB 120 + 300, 32 GiB 180 + 390), TOTAL_LIMIT (575: no step runs past it;
# a size with less than 60 s left is skipped and counted as a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${CUZK_DEVBUILD:-.devbuild}
A=$B/supraseal
OUT=${OUT:-/tmp/cuzk-out}

# What supra_seal's c2/Cargo.toml asks for (sppark = "^0.1.5", blst = "^0.3.11"), resolved as cargo
# resolves it today: the newest 0.1.x / 0.3.x release.
# The oldest matching releases also build (SPPARK_REV=6d216a66a514 = v0.1.5,
# BLST_REV=3dd0f804b181 = v0.3.11: what c2/ was written against in 2023).
SUPRASEAL_REV=${SUPRASEAL_REV:-c2ff1acf282dad86812c62f5f431db545d966743} # supra_seal main (c2/ last changed 2023-08-10)
SPPARK_REV=${SPPARK_REV:-17278d74295392f9813f009300b257a688422b7a}       # sppark v0.1.15
BLST_REV=${BLST_REV:-e7f90de551e8df682f3cc99067d204d8b90d27ad}           # blst v0.3.16

extract() {
  : "${SUPRASEAL_GIT:?set SUPRASEAL_GIT to a git directory of supranational/supra_seal}"
  : "${SPPARK_GIT:?set SPPARK_GIT to a git directory of supranational/sppark}"
  : "${BLST_GIT:?set BLST_GIT to a git directory of supranational/blst}"
  local g rev
  for g in "$SUPRASEAL_GIT:$SUPRASEAL_REV" "$SPPARK_GIT:$SPPARK_REV" "$BLST_GIT:$BLST_REV"; do
    rev=${g##*:}
    git -C "${g%:*}" cat-file -e "$rev^{commit}" || { echo "no commit $rev in ${g%:*}" >&2; exit 2; }
  done
  rm -rf "$A/src"
  mkdir -p "$A/src/supra_seal" "$A/src/sppark" "$A/src/blst"
  # supra_seal file by file: only c2/ and the licence (a mirror may lack the large blobs elsewhere).
  local f
  for f in LICENSE $(git -C "$SUPRASEAL_GIT" ls-tree -r --name-only "$SUPRASEAL_REV" c2); do
    mkdir -p "$A/src/supra_seal/$(dirname "$f")"
    git -C "$SUPRASEAL_GIT" show "$SUPRASEAL_REV:$f" >"$A/src/supra_seal/$f"
  done
  git -C "$SPPARK_GIT" archive "$SPPARK_REV" ec ff msm ntt util LICENSE | tar -x -C "$A/src/sppark"
  git -C "$BLST_GIT" archive "$BLST_REV" src build bindings LICENSE | tar -x -C "$A/src/blst"
  {
    echo "supra_seal $SUPRASEAL_REV (c2/, Apache-2.0)"
    echo "sppark $SPPARK_REV $(git -C "$SPPARK_GIT" describe --tags --exact-match "$SPPARK_REV" 2>/dev/null || true) (Apache-2.0)"
    echo "blst $BLST_REV $(git -C "$BLST_GIT" describe --tags --exact-match "$BLST_REV" 2>/dev/null || true) (Apache-2.0)"
    echo "c2/Cargo.toml asks for: sppark ^0.1.5, blst ^0.3.11 (the newest matching releases above)"
  } >"$A/src/PROVENANCE.txt"
  cat "$A/src/PROVENANCE.txt"
}

prepare() {
  extract
  local bd=${SUPRASEAL_BUILD:-build-supraseal}
  # The device build (README: GCC, Release, ADX, sm_90 machine code); only the targets needed.
  # SUPRASEAL_CMAKE_ARGS: more cmake arguments, split on spaces.
  # shellcheck disable=SC2086
  CC=${CC:-gcc} CXX=${CXX:-g++} cmake -S . -B "$bd" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUZK_X86_ADX=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_CUDA=ON -DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_GPU_TESTS=OFF \
    -DCUZK_SUPRASEAL_DIR="$PWD/$A/src" ${SUPRASEAL_CMAKE_ARGS:-} >/dev/null
  cmake --build "$bd" -j "${CUZK_JOBS:-$(nproc)}" --target bench_vs_supraseal
  rm -rf "${A:?}/bin" "${A:?}/lib"
  mkdir -p "$A/bin" "$A/lib"
  cp "$bd/bench/bench_vs_supraseal" "$A/src/PROVENANCE.txt" "$A/bin/"
  strip "$A/bin/bench_vs_supraseal"
  # Shared libraries outside the C/C++ runtime go with the binary (a fresh device machine has only
  # the base system and the driver).
  ldd "$A/bin/bench_vs_supraseal" | awk '/=> \// {print $3}' |
    grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$A/lib/"; done
  du -sh "$A/bin" "$A/lib"
  ls -la "$A/bin" "$A/lib"
  echo "carry: [\"$A/bin\", \"$A/lib\"]"
}

run() {
  local bin=$A/bin/bench_vs_supraseal
  [ -x "$bin" ] || { echo "no $bin: run '$0 prepare' on the development machine and carry $A/bin and $A/lib" >&2; exit 2; }
  export LD_LIBRARY_PATH="$A/lib:${LD_LIBRARY_PATH:-}"
  mkdir -p "$OUT/logs"
  local D=${DATA:-/tmp/cuzk-supra} fails=0 size p rc reps limit_setup limit_run t0 start
  start=$(date +%s)
  # The device tool stops a command at 600 s: no step may run past TOTAL_LIMIT from the start.
  left() { echo $((${TOTAL_LIMIT:-575} - ($(date +%s) - start))); }
  clamp() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
  mkdir -p "$D"
  {
    date -u
    echo "cpus $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
    free -g | head -2
    df -h "$D" | tail -1
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader || echo "no nvidia-smi"
    cat "$A/bin/PROVENANCE.txt" 2>/dev/null || echo "(no PROVENANCE.txt carried)"
  } | tee "$OUT/machine.txt"
  for size in ${SIZES:-512MiB}; do
    p=$D/porep-$size.params
    if [ "$size" = 32GiB ] || [ "$size" = 64GiB ]; then
      reps=${REPS:-1}
      limit_setup=${SETUP_LIMIT:-180}
      limit_run=${RUN_LIMIT:-390}
    else
      reps=${REPS:-3}
      limit_setup=${SETUP_LIMIT:-120}
      limit_run=${RUN_LIMIT:-300}
    fi
    if [ "$(left)" -lt 60 ]; then
      echo "SKIP $size: $(left) s left of TOTAL_LIMIT (run it in its own command: SIZES=$size)" | tee -a "$OUT/summary.txt"
      fails=$((fails + 1))
      continue
    fi
    limit_setup=$(clamp "$limit_setup")
    echo "== $size: setup (TEST-ONLY key, GPU) -> $p"
    t0=$(date +%s)
    rc=0
    timeout "$limit_setup" "$bin" setup --size "$size" --params "$p" --vk "$D/porep-$size.vk" --seed "${SEED:-1}" \
      >"$OUT/logs/setup-$size.json" 2>"$OUT/logs/setup-$size.err" || rc=$?
    echo "setup $size: rc $rc, $(($(date +%s) - t0)) s; $(cat "$OUT/logs/setup-$size.json")" | tee -a "$OUT/summary.txt"
    du -sh "$D"/* 2>/dev/null | tee -a "$OUT/logs/disk-$size.txt" || true
    df -h "$D" | tail -1 | tee -a "$OUT/logs/disk-$size.txt"
    if [ "$rc" != 0 ]; then
      tail -5 "$OUT/logs/setup-$size.err"
      fails=$((fails + 1))
      rm -f "$p"
      continue
    fi
    limit_run=$(clamp "$limit_run")
    echo "== $size: run (at most $limit_run s)"
    t0=$(date +%s)
    rc=0
    # shellcheck disable=SC2086
    timeout "$limit_run" "$bin" run --size "$size" --params "$p" --out "$OUT/logs" --counts "${COUNTS:-1,2,max}" \
      --max-circuits "${MAX_CIRCUITS:-auto}" --budget-gib "${BUDGET_GIB:-112}" --reps "$reps" --warmup "${WARMUP:-1}" \
      --ours "${OURS:-resident}" --ours-slots "${OURS_SLOTS:-2}" --ours-cap-gib "${OURS_CAP_GIB:-0}" --seed "${SEED:-1}" \
      ${NO_SUPRASEAL:+--no-supraseal} >"$OUT/logs/run-$size.log" 2>&1 || rc=$?
    echo "run $size: rc $rc, $(($(date +%s) - t0)) s" | tee -a "$OUT/summary.txt"
    grep -E '"step": "(plan|ours_build|supraseal_srs_load|supraseal_count|ours_two_in_flight|ours_failed|supraseal_failed)"' "$OUT/logs/run-$size.log" |
      cut -c1-400 | tee -a "$OUT/summary.txt" || true
    if [ "$rc" != 0 ]; then
      tail -5 "$OUT/logs/run-$size.log" | tee -a "$OUT/summary.txt"
      fails=$((fails + 1))
    fi
    if grep -q '"verified": false' "$OUT/logs/run-$size.log"; then
      echo "FAIL $size: a proof did not verify" | tee -a "$OUT/summary.txt"
      fails=$((fails + 1))
    fi
    rm -f "$p"
  done
  cat "$OUT"/logs/vs_supraseal-*.md >"$OUT/vs_supraseal.md" 2>/dev/null || true
  cat "$OUT/vs_supraseal.md" 2>/dev/null || true
  echo "failures: $fails" | tee -a "$OUT/summary.txt"
  tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
  exit "$fails"
}

cpu_check() {
  local bin=${BIN:-${SUPRASEAL_BUILD:-build-supraseal}/bench/bench_vs_supraseal} size=${SIZE:-512MiB}
  local p=${PARAMS:-/tmp/cuzk-supra-cpu/porep-$size.params}
  mkdir -p "$(dirname "$p")"
  [ -f "$p" ] || "$bin" setup --cpu --size "$size" --params "$p"
  "$bin" cpu-check --size "$size" --params "$p"
}

case "${1:-run}" in
  prepare) prepare ;;
  extract) extract ;;
  run) run ;;
  cpu-check) cpu_check ;;
  *) echo "usage: $0 prepare|run|cpu-check" >&2; exit 2 ;;
esac
