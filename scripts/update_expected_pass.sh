#!/usr/bin/env bash
# Runs the conformance suites and adds every passing test to
# tests/conformance/expected_pass.txt. The list only grows: tests already in
# it stay, whatever this run says.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${TESSERA_ONNX_TESTS:-../shared/onnx-tests}"
list=tests/conformance/expected_pass.txt
tmp=$(mktemp -d)
for suite in node pytorch-converted pytorch-operator simple; do
  [ -d "$data/$suite" ] || continue
  build/bin/tessera conformance "$data/$suite" --quiet --skip tests/conformance/skip.txt \
    --tolerances tests/conformance/tolerances.txt --report "$tmp/$suite.json" >/dev/null || true
done
python3 - "$list" "$tmp"/*.json <<'PY'
import json, sys
path, reports = sys.argv[1], sys.argv[2:]
names = set(l.split('#')[0].strip() for l in open(path)) - {""}
before = len(names)
for r in reports:
    names |= {t["name"] for t in json.load(open(r))["tests"] if t["status"] == "pass"}
with open(path, "w") as f:
    f.write("".join(n + "\n" for n in sorted(names)))
print(f"{path}: {before} -> {len(names)} tests")
PY
rm -rf "$tmp"
