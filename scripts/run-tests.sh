#!/usr/bin/env bash
# Installs, builds and runs every test: the Release build, a second build under
# AddressSanitizer + UndefinedBehaviorSanitizer, and the live @noble/curves cross-check.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=${CUZK_JOBS:-$(nproc)}
t0=$(date +%s)

echo "== Formatting (clang-format --dry-run)"
git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror

echo "== Release build and tests"
bash scripts/build.sh build
ctest --test-dir build -L cpu --output-on-failure -j "$jobs"

echo "== Live cross-check against @noble/curves (fresh random vectors)"
live=$(mktemp -d)
node tests/vectors/check_live.mjs --fresh-out "$live" --ctest build
rm -rf "$live"

echo "== ASan+UBSan build and tests"
CMAKE_BUILD_TYPE=RelWithDebInfo bash scripts/build.sh build-asan -DCUZK_SANITIZE=ON -DCUZK_BUILD_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L cpu -LE slow --output-on-failure -j "$jobs"

echo "== all tests passed in $(( $(date +%s) - t0 )) s"
