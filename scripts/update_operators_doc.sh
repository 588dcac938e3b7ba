#!/usr/bin/env bash
# Regenerates docs/operators.md: runs the conformance suites, then formats the
# kernel tables with the per-op pass counts.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${TESSERA_ONNX_TESTS:-../shared/onnx-tests}"
tmp=$(mktemp -d)
reports=()
for suite in node pytorch-converted pytorch-operator simple; do
  [ -d "$data/$suite" ] || continue
  build/bin/tessera conformance "$data/$suite" --quiet --skip tests/conformance/skip.txt \
    --tolerances tests/conformance/tolerances.txt \
    --report "$tmp/conformance-$suite.json" >/dev/null || true
  reports+=("$tmp/conformance-$suite.json")
done
python3 scripts/gen_operators_doc.py build/bin/tessera docs/operators.md "${reports[@]}"
rm -rf "$tmp"
