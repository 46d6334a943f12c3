#!/usr/bin/env python3
"""Lists the functions of the readers, the report and the lints longer than a limit.

    python3 scripts/long-functions.py            # the default folders, at most 150 lines
    python3 scripts/long-functions.py --max 100 cargo-occupancy/src

A function runs from its `fn` line to the closing brace at the same indentation, as rustfmt
writes it (CI checks the formatting first); test folders are left out. Exits 1 when one is
longer than `--max` lines (issue 25: "no function in the readers, the report or the lints
over about 150 lines"), printing each as `lines path:line name`, longest first.
"""

import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

DEFAULT_FOLDERS = [
    "occupancy-read/src",
    "occupancy-attr/src",
    "occupancy-cuda/src",
    "occupancy-spec/src",
    "cargo-occupancy/src/report",
    "occupancy-core/src/lint",
]

FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")


def functions(path):
    """(lines, 1-based line, name) of each function of the file with a body."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, name = m.group(1), m.group(7)
        # A declaration without a body (a trait's) ends with `;` before any `{`.
        j = i
        while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
            j += 1
        if j < len(lines) and lines[j].rstrip().endswith(";") and "{" not in lines[j]:
            i = j + 1
            continue
        end = j
        if not lines[j].rstrip().endswith("}") or lines[j].count("{") != lines[j].count("}"):
            end = j + 1
            while end < len(lines) and not (
                lines[end].startswith(indent + "}") and not lines[end][len(indent)].isspace()
            ):
                end += 1
        yield end - i + 1, i + 1, name
        i += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max", type=int, default=150, help="the most lines a function may have")
    parser.add_argument("folders", nargs="*", help="folders to read (default: the readers, the report, the lints)")
    args = parser.parse_args()
    folders = args.folders or [os.path.join(ROOT, f) for f in DEFAULT_FOLDERS]
    long = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "target"))
            for f in sorted(filenames):
                if f.endswith(".rs") and f != "tests.rs":
                    path = os.path.join(dirpath, f)
                    for n, line, name in functions(path):
                        if n > args.max:
                            long.append((n, os.path.relpath(path, ROOT), line, name))
    for n, path, line, name in sorted(long, reverse=True):
        print(f"{n} {path}:{line} {name}")
    if long:
        print(f"{len(long)} function(s) over {args.max} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
