#!/usr/bin/env python3
"""Writes the entry list of docs/c-api.md from the OrtApi table.

The table (src/tessera/api/c/include/ort_api_entries.inc) says for each of
the 426 entries whether Tessera implements it; the doc's list between the
GENERATED markers is rebuilt from it.

    scripts/gen_c_api_doc.py           # rewrite the list in docs/c-api.md
    scripts/gen_c_api_doc.py --check   # exit 1 when docs/c-api.md is stale (ctest c_api.doc_entries)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TABLE = ROOT / "src/tessera/api/c/include/ort_api_entries.inc"
DOC = ROOT / "docs/c-api.md"
BEGIN = "<!-- BEGIN GENERATED ENTRY LIST (scripts/gen_c_api_doc.py) -->"
END = "<!-- END GENERATED ENTRY LIST -->"
ENTRY = re.compile(r"^TS_ORT_API\((\d+), ([01]), .*?, (\w+), \(")


def read_table():
    entries = []
    for line in TABLE.read_text().splitlines():
        m = ENTRY.match(line)
        if m:
            entries.append((int(m.group(1)), m.group(2) == "1", m.group(3)))
    indices = [e[0] for e in entries]
    if indices != list(range(len(entries))):
        raise SystemExit(f"{TABLE}: entries are not numbered 0..{len(entries) - 1} in order")
    return entries


def render(entries):
    done = [e for e in entries if e[1]]
    todo = [e for e in entries if not e[1]]
    lines = [
        BEGIN,
        "",
        f"OrtApi version 30 has {len(entries)} entries: Tessera implements {len(done)}; the other {len(todo)} "
        "answer `ORT_NOT_IMPLEMENTED` with a message naming the entry (or, for the few that return no status, "
        "the documented \"absent\" value: NULL, 0, false, or nothing).",
        "",
        f"**Implemented ({len(done)}):** " + ", ".join(f"`{name}` ({i})" for i, _, name in done) + ".",
        "",
        f"**Not implemented ({len(todo)}):** " + ", ".join(f"`{name}` ({i})" for i, _, name in todo) + ".",
        "",
        END,
    ]
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{DOC}: the GENERATED markers are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    updated = head + render(read_table()) + tail
    if check:
        if updated != text:
            print(f"{DOC} is stale: run scripts/gen_c_api_doc.py", file=sys.stderr)
            return 1
        print(f"{DOC}: entry list matches {TABLE.name}")
        return 0
    DOC.write_text(updated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
