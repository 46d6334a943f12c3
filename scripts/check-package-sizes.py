#!/usr/bin/env python3
"""Packs every published package of the workspace (`cargo package --no-verify`, the files
`cargo publish` would upload) and fails if one is over the limit, 200 KiB compressed by
default. Prints each package's size. Run from anywhere; honours CARGO_TARGET_DIR.

    python3 scripts/check-package-sizes.py [--max-kib 200]
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-kib", type=float, default=200)
    args = parser.parse_args()
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    )
    # `publish = false` is `[]` in cargo's metadata.
    published = [p for p in meta["packages"] if p["publish"] != []]
    command = ["cargo", "package", "--no-verify", "--quiet"]
    for p in published:
        command += ["-p", p["name"]]
    subprocess.run(command, cwd=ROOT, check=True)
    over = []
    for p in published:
        name, version = p["name"], p["version"]
        crate = pathlib.Path(meta["target_directory"], "package", f"{name}-{version}.crate")
        kib = crate.stat().st_size / 1024
        print(f"{crate.name}: {kib:.1f} KiB compressed")
        if kib > args.max_kib:
            over.append(name)
    if over:
        sys.exit(f"over {args.max_kib:g} KiB compressed: {', '.join(over)}")


if __name__ == "__main__":
    main()
