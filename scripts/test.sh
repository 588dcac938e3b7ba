#!/usr/bin/env bash
# Builds Tessera and runs every test: unit tests, the ONNX conformance suite
# against the expected-pass list, and the bundled model check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
