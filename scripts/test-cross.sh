#!/usr/bin/env bash
# scripts/test-cross.sh aarch64: cross-builds Tessera for aarch64 with
# Debian's arm64 toolchain and libraries into build-aarch64/, then runs the
# unit tests and the node conformance suite (native and under every
# instruction-set cap: neon, scalar) under qemu-user. Installs what it needs
# (idempotent). Extra arguments go to ctest (say -R isa).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-}
[ "$arch" = aarch64 ] || { echo "usage: scripts/test-cross.sh aarch64 [ctest args...]" >&2; exit 2; }
shift
packages=(
  crossbuild-essential-arm64 qemu-user-static protobuf-compiler
  libprotobuf-dev:arm64 libopenblas-dev:arm64 libhwy-dev:arm64
  libgtest-dev:arm64 libgmock-dev:arm64
  libjpeg62-turbo-dev:arm64 libpng-dev:arm64 libwebp-dev:arm64 libtiff-dev:arm64 libopenjp2-7-dev:arm64
)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO dpkg --add-architecture arm64
fi
scripts/setup.sh "${packages[@]}"
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# The Python module and the OpenCL EP stay out: the first needs an arm64
# interpreter to import it, the second a device. So does the oneDNN EP:
# Debian's libdnnl-dev is not multiarch (libdnnl-dev:arm64 "trying to
# overwrite shared '/usr/include/oneapi/dnnl/dnnl_config.h'" next to the
# amd64 one), see docs/cross-aarch64.md.
cmake -S . -B build-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake \
  -DTESSERA_BUILD_PYTHON=OFF -DTESSERA_WITH_OPENCL=OFF -DTESSERA_WITH_DNNL=OFF -DTESSERA_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C build-aarch64 -j"$(nproc)"
cd build-aarch64
# The whole unit-test binary once per level (isa.neon.* is the native run:
# NEON is aarch64's best compiled level) and the node suite; the per-test
# entries would start qemu 700 times, and the thread pool's timing tests
# crawl under emulation. `scripts/test-cross.sh aarch64 -R .` runs them all.
if [ $# -eq 0 ]; then set -- -R '^(isa\.|conformance\.node$|default_model\.|tools\.isa)'; fi
ctest --output-on-failure -j"$(nproc)" "$@"
