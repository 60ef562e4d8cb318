#!/usr/bin/env python3
"""Branch coverage of C functions from an `llvm-cov export -format=text` JSON file.

Usage:
    branch_coverage.py EXPORT_JSON SOURCE_FILE FUNCTION [FUNCTION ...]

Prints one line, `covered total`, where, over the named functions of SOURCE_FILE:
    total   = 2 x the number of branch entries (each entry has two directions),
    covered = the number of directions taken at least once.
Each entry of a function's "branches" array in the export is
[lineStart, colStart, lineEnd, colEnd, trueCount, falseCount, fileId, expandedFileId,
 kind]; a direction is taken when its count (trueCount or falseCount) is > 0. Clang
emits one entry per leaf condition of && and || (so `if (!a || !b)` is two entries),
per loop condition and per `case` of a switch (a case's false direction being "another
case was taken").

SOURCE_FILE is matched against the function's "filenames" by file name (basename), so
a fixture #included by a harness or driver from any directory matches. FUNCTION is
matched against the export's function name, where a static function appears as
`file.c:name`. When a function appears more than once (e.g. exported from several
binaries merged into one profile), its entries are merged by source position: a
direction is covered when any copy took it. A named function that is not in the
export counts 0 of 0 and is reported on stderr. Exit status 0 unless the JSON cannot be
read. Standard library only; python3.
"""
import json
import os
import sys


def strip_name(name):
    # A static function is exported as "file.c:name" (older exports: "file.c;name").
    for sep in (":", ";"):
        if sep in name:
            name = name.rsplit(sep, 1)[1]
    return name


def branch_coverage(export, source, functions):
    """(covered, total) over `functions` (names) defined in `source` (a basename)."""
    base = os.path.basename(source)
    wanted = set(functions)
    seen = set()
    # (function, file, lineStart, colStart, lineEnd, colEnd) -> [trueTaken, falseTaken]
    entries = {}
    for data in export.get("data", []):
        for fn in data.get("functions", []):
            name = strip_name(fn.get("name", ""))
            if name not in wanted:
                continue
            files = [os.path.basename(f) for f in fn.get("filenames", [])]
            if base not in files:
                continue
            seen.add(name)
            names = fn.get("filenames", [])
            for b in fn.get("branches", []):
                # The file a branch is in (a macro expansion has its own file id).
                where = os.path.basename(names[b[6]]) if len(b) > 6 and b[6] < len(names) else ""
                key = (name, where, b[0], b[1], b[2], b[3])
                e = entries.setdefault(key, [False, False])
                e[0] = e[0] or b[4] > 0
                e[1] = e[1] or b[5] > 0
    for name in sorted(wanted - seen):
        print(f"branch_coverage.py: {name} not found in {source}", file=sys.stderr)
    covered = sum(int(t) + int(f) for t, f in entries.values())
    return covered, 2 * len(entries)


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            export = json.load(f)
    except (OSError, ValueError) as e:
        print(f"branch_coverage.py: {argv[1]}: {e}", file=sys.stderr)
        return 1
    covered, total = branch_coverage(export, argv[2], argv[3:])
    print(covered, total)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
