#!/usr/bin/env bash
# Installs everything cuzk needs to build and test on a fresh Debian 12 machine: compilers and
# libraries from Debian, and the pinned npm test oracles (tests/vectors/package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PKGS=(build-essential cmake ninja-build git pkg-config ccache clang-format clang libclang-rt-dev libxxhash-dev
      libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
      libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
      libtomlplusplus-dev libspdlog-dev libfmt-dev libsimdjson-dev python3 python3-grpcio python3-protobuf)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from another repository that bundles npm: install by command, not by package.
if [ "${CUZK_SKIP_NPM:-0}" != "1" ]; then
  command -v node >/dev/null || missing+=(nodejs)
  command -v npm >/dev/null || missing+=(npm)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[install-deps] apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${CUZK_SKIP_NPM:-0}" != "1" ]; then
  # @noble/curves 2.x needs node >= 20.19.
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=19)?0:1)' || {
    echo "[install-deps] node $(node --version) is too old for @noble/curves (needs >= 20.19)" >&2; exit 1; }
  if [ ! -d tests/vectors/node_modules/@noble/curves ]; then
    echo "[install-deps] npm ci (tests/vectors)"
    (cd tests/vectors && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
echo "[install-deps] done"
