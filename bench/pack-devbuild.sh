#!/usr/bin/env bash
# Copies device binaries from a build directory into .devbuild/ (git-ignored, carried to the device
# machine), at the paths the bench/device-*.sh scripts expect ($B/tests/..., $B/bench/...,
# $B/apps/...), with the shared libraries they need that a bare device machine lacks in
# .devbuild/lib (everything ldd resolves outside glibc's own and the CUDA driver's).
#   bash bench/pack-devbuild.sh BUILD_DIR RELATIVE/PATH/TO/BINARY...
# e.g. bash bench/pack-devbuild.sh build-dev tests/test_gpu_streamed bench/bench_porep_gpu apps/cuzk/cuzk
# Binaries are stripped (symbols are not needed to run them; the carry limit is 64 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
shift
B=${CUZK_DEVBUILD:-.devbuild}
mkdir -p "$B/lib"
for rel in "$@"; do
  mkdir -p "$B/$(dirname "$rel")"
  cp "$build/$rel" "$B/$rel"
  strip "$B/$rel"
  ldd "$build/$rel" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libcuda.so* | libnvidia*) ;;
      *) cp -L "$lib" "$B/lib/" ;;
    esac
  done
done
du -sh "$B" "$B/lib"
