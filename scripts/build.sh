#!/usr/bin/env bash
# Configures and builds Tessera into build/ (Release). Extra arguments go to ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR=$werror >/dev/null
jobs=$(nproc)
ninja -C build -j"$jobs" "$@"
