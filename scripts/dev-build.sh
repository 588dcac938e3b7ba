#!/usr/bin/env bash
# Configures (once) and builds into the given folder (default: build).
# ccache keys on paths relative to the checkout, so parallel build folders share objects.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CMAKE_EXTRA_ARGS[@]:-}" >/dev/null
fi
ninja -C "$dir" "$@"
