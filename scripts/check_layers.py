#!/usr/bin/env python3
"""Fails when a source file includes a header from a layer above its own.

Layer order (lowest first). format sits above ir because it produces IR
objects; protobuf stays private to it.
"""
import pathlib
import re
import sys

ORDER = ["base", "ir", "format", "ops", "optimizer", "partition", "runtime", "providers", "quantization", "api", "tools"]
RANK = {name: i for i, name in enumerate(ORDER)}
INCLUDE = re.compile(r'^\s*#\s*include\s*"tessera/([a-z_]+)/')


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    errors = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        layer = path.relative_to(root).parts[0]
        if layer not in RANK:
            continue
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) in RANK and RANK[m.group(1)] > RANK[layer]:
                errors.append(f"{path}:{lineno}: layer '{layer}' must not include '{m.group(1)}' (above it)")
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
