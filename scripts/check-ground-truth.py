#!/usr/bin/env python3
"""Runs recorded occupancy answers through `cargo occupancy batch` and counts agreement.

    python3 scripts/check-ground-truth.py PATH [PATH ...] [--bin BINARY]

Each PATH is either
  - a header-vectors file (TSV whose header has `arch`, `block_size`, ... and the expected
    `blocks_per_sm` and `limiters`, as `../shared/ground-truth/header-vectors.tsv`): fed to
    `batch` as it is; `blocks_per_sm` ("error" where the header refused) and `limiters`
    are compared; or
  - a folder of driver answers as `../shared/ground-truth/h200/` records them
    (`kernels.json` and `occupancy.tsv` or `occupancy.tsv.gz`; the architecture from
    `device.json`, else sm_90): every block size of every row becomes a batch row (registers,
    static shared memory and max threads per block from `kernels.json`, barriers per block
    from the kernel name's `_b<B>_`), and `batch`'s `blocks_per_sm` is compared with the
    driver's answer ('-', a driver error, must be a batch error).

Prints the rows checked and agreeing per PATH and the first disagreements; exits 1 if any
row disagrees. Without `--bin`, `cargo build --release -p cargo-occupancy` runs first and its
binary is used (in `$CARGO_TARGET_DIR` when set).
"""

import argparse
import gzip
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
BATCH_COLUMNS = [
    "arch",
    "block_size",
    "registers_per_thread",
    "static_smem",
    "dynamic_smem",
    "max_dynamic_smem",
    "carveout",
    "barriers",
    "max_threads_per_block",
]


def batch(binary, text):
    """`cargo occupancy batch` on `text`: its output rows, header dropped, as a list of lines."""
    out = subprocess.run([binary, "occupancy", "batch"], input=text, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"batch failed ({out.returncode}): {out.stderr.strip()}")
    return out.stdout.splitlines()[1:]


def check_vectors(binary, path):
    """A header-vectors file: (checked, wrong examples)."""
    text = path.read_text()
    header = text.splitlines()[0].split("\t")
    want_blocks, want_limiters = header.index("blocks_per_sm"), header.index("limiters")
    rows = [line.split("\t") for line in text.splitlines()[1:] if line and not line.startswith("#")]
    got = [line.split("\t") for line in batch(binary, text)]
    wrong = []
    for row, out in zip(rows, got):
        # batch appends blocks_per_sm, warps_per_sm, occupancy, limiters, error.
        blocks, limiters = out[-5], out[-2]
        expected = (row[want_blocks], row[want_limiters] if row[want_blocks] != "error" else "")
        if (blocks, limiters if blocks != "error" else "") != expected:
            wrong.append(f"{chr(9).join(row)}\n    expected {expected}, batch {(blocks, limiters)}")
    if len(got) != len(rows):
        wrong.append(f"batch answered {len(got)} rows of {len(rows)}")
    return len(rows), wrong


def check_driver(binary, folder):
    """A folder of driver answers: (checked, wrong examples)."""
    kernels = json.loads((folder / "kernels.json").read_text())
    arch = "sm_90"
    device = folder / "device.json"
    if device.exists():
        attrs = json.loads(device.read_text())
        major = attrs.get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        minor = attrs.get("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        if major is not None and minor is not None:
            arch = f"{major}.{minor}"
    plain = folder / "occupancy.tsv"
    raw = plain.read_text() if plain.exists() else gzip.open(folder / "occupancy.tsv.gz", "rt").read()
    lines = [line for line in raw.splitlines() if line and not line.startswith("#")][1:]
    # One batch row per block size; what to expect is found again from `lines` by row number,
    # so that nothing per row is kept but the input and output text (3.5 M rows: 1.4 GB at the
    # peak).
    input_rows = ["\t".join(BATCH_COLUMNS)]
    for line in lines:
        name, carveout, max_dynamic, dynamic, answers = line.split("\t")
        k = kernels[name]
        barriers = re.search(r"_b(\d+)", name)
        barriers = barriers.group(1) if barriers else "1"
        fixed = [k["num_regs"], k["shared_size_bytes"], dynamic, max_dynamic, carveout, barriers,
                 k["max_threads_per_block"]]
        tail = "\t".join(map(str, fixed))
        input_rows.extend(f"{arch}\t{i}\t{tail}" for i in range(1, len(answers) + 1))
    got = batch(binary, "\n".join(input_rows) + "\n")
    del input_rows
    wrong, checked = [], 0
    for line in lines:
        name, carveout, max_dynamic, dynamic, answers = line.split("\t")
        for i, answer in enumerate(answers):
            want = "error" if answer == "-" else str(ALPHABET.index(answer))
            blocks = got[checked].split("\t")[9] if checked < len(got) else "(none)"
            checked += 1
            if blocks != want:
                wrong.append(f"{name} carveout={carveout} max_dyn={max_dynamic} dyn={dynamic} "
                             f"block={i + 1}: driver {want}, batch {blocks}")
    if len(got) != checked:
        wrong.append(f"batch answered {len(got)} rows of {checked}")
    return checked, wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=pathlib.Path)
    ap.add_argument("--bin", type=pathlib.Path, default=None)
    args = ap.parse_args()
    for path in args.paths:
        if not path.exists():
            sys.exit(f"{path}: no such file or folder (the recorded answers, e.g. the shared "
                     "ground-truth folder beside this checkout)")
    if args.bin is None:
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
        args.bin = (target if target.is_absolute() else ROOT / target) / "release/cargo-occupancy"
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "cargo-occupancy"], cwd=ROOT, check=True)
    failed = False
    for path in args.paths:
        checked, wrong = (check_driver if path.is_dir() else check_vectors)(args.bin, path)
        agree = checked - len(wrong)
        share = 100.0 * agree / checked if checked else 0.0
        print(f"{path}: {agree:,} of {checked:,} rows agree ({share:.4f}%)")
        for w in wrong[:10]:
            print(f"  {w}")
        failed |= bool(wrong) or checked == 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
