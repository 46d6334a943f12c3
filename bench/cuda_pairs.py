#!/usr/bin/env python3
"""Inputs of up to 4 KiB for the CUDA C++ reader's time bound (issue 27): the fuzz target
keeps inputs of at most 2 KiB, so the slowest of them are joined two by two.

    cuda_replay --times CORPUS > times.txt
    bench/cuda_pairs.py times.txt OUT_DIR          # 400 random pairs + 60 doubled inputs
    cuda_replay --times OUT_DIR | awk 'NF == 2 && $1 > 50' | wc -l

Takes the 120 slowest inputs of `times.txt` (lines `MS PATH`), then writes 400 pairs drawn
with a fixed seed (`p000`..) and each of the 60 slowest joined with itself (`d000`..), each
cut at 4,096 bytes.
"""
import random
import sys
from pathlib import Path


def main() -> None:
    times, out = Path(sys.argv[1]), Path(sys.argv[2])
    rows = [line.split() for line in times.read_text().splitlines()]
    rows = [(float(r[0]), r[1]) for r in rows if len(r) == 2 and r[0].replace(".", "").isdigit()]
    slowest = [p for _, p in sorted(rows, reverse=True)[:120]]
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    for i in range(400):
        a, b = rng.sample(slowest, 2)
        (out / f"p{i:03d}").write_bytes((Path(a).read_bytes() + b"\n" + Path(b).read_bytes())[:4096])
    for i, a in enumerate(slowest[:60]):
        data = Path(a).read_bytes()
        (out / f"d{i:03d}").write_bytes((data + b"\n" + data)[:4096])


if __name__ == "__main__":
    main()
