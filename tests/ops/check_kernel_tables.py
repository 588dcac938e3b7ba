#!/usr/bin/env python3
"""Walks every provider's kernel table (from `tessera ops --json`) against the
ONNX operator version history and fails on:
  - rows of one op that overlap, or leave a gap between them;
  - a row that starts at an opset where the op's definition did not change;
  - an op whose rows stop before the newest opset Tessera supports.
Usage: check_kernel_tables.py TESSERA_BINARY ONNX_OP_VERSIONS_JSON
Exit 77 (skipped) when the version history file is absent.
"""
import json
import os
import subprocess
import sys

MAX_OPSET = {"ai.onnx": 28, "ai.onnx.ml": 5}
# ONNX Runtime registers these in the ONNX domain at opsets where ONNX has no
# such version, and its tools write models that use them there.
ORT_ONNX_DOMAIN_VERSIONS = {("ai.onnx", "LayerNormalization"): [1]}


def main() -> int:
    binary, history_path = sys.argv[1], sys.argv[2]
    if not os.path.exists(history_path):
        print(f"skipped: {history_path} not found")
        return 77
    history = json.load(open(history_path))["ops"]
    tables = json.loads(subprocess.check_output([binary, "ops", "--json"]))
    errors = []
    for provider, rows in tables.items():
        by_op = {}
        for r in rows:
            by_op.setdefault((r["domain"], r["op"]), []).append(r)
        for (domain, op), op_rows in sorted(by_op.items()):
            op_rows.sort(key=lambda r: r["first"])
            label = f"{provider}: {domain}:{op}"
            versions = history.get(domain, {}).get(op)
            for r in op_rows:
                if r["first"] > r["last"]:
                    errors.append(f"{label}: row {r['first']}-{r['last']} is empty")
            for a, b in zip(op_rows, op_rows[1:]):
                if b["first"] <= a["last"]:
                    errors.append(f"{label}: rows {a['first']}-{a['last']} and {b['first']}-{b['last']} overlap")
                elif b["first"] != a["last"] + 1:
                    errors.append(f"{label}: gap between {a['last']} and {b['first']}")
            if versions is None:
                continue  # Tessera's own ops have no ONNX history
            versions = versions + ORT_ONNX_DOMAIN_VERSIONS.get((domain, op), [])
            for r in op_rows:
                if r["first"] not in versions:
                    errors.append(f"{label}: row starts at {r['first']}, not a version of {op} ({versions})")
            top = MAX_OPSET.get(domain)
            if top is not None and op_rows[-1]["last"] != top:
                errors.append(f"{label}: rows end at {op_rows[-1]['last']}, not at opset {top}")
    for e in errors:
        print(e)
    ops = sum(len({(r['domain'], r['op']) for r in rows}) for rows in tables.values())
    print(f"{ops} ops checked, {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
