#!/usr/bin/env python3
"""Report cost: the time of `cargo occupancy report --all` on a crate the size of
candle-core with 36 kernel launches, none annotated, and of `cargo occupancy report` on the
same crate with the 30 launching functions it can check annotated.

The crate is tests/fixtures/adopt (33 launching functions in the styles of real Rust CUDA
code) with 3 more launching functions and generated modules without launches that bring it
to candle-core's size (--files 80 files, --lines 45,000 lines of Rust in all: structs,
enums, generic impls, matches, closures and iterator chains). The annotated variant takes
each attribute `report --all --json` says it reads the function with, at the line it gives.

    cargo build --release -p cargo-occupancy
    python3 bench/report-cost/run.py [--runs 7] [--files 80] [--lines 45000]

Prints the median wall time of each command over the runs (after one warm-up run) and the
crate's size.
"""

import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "report-cost"
FIXTURE = ROOT / "tests" / "fixtures" / "adopt"
BIN = ROOT / "target" / "release" / "cargo-occupancy"

EXTRA = '''//! Three more launching functions.
use cudarc::driver::{CudaSlice, DriverError, LaunchConfig, PushKernelArg};

use crate::Gpu;
use crate::consts::TILE;

pub fn tile_fill(gpu: &Gpu, y: &mut CudaSlice<f32>, rows: u32, cols: u32) -> Result<(), DriverError> {
    let f = gpu.module.load_function("fill_f32")?;
    let cfg = LaunchConfig { grid_dim: (cols.div_ceil(TILE), rows.div_ceil(TILE), 1), block_dim: (TILE, TILE, 1), shared_mem_bytes: 0 };
    let v = 1f32;
    let n = rows * cols;
    unsafe { gpu.stream.launch_builder(&f).arg(y).arg(&v).arg(&n).launch(cfg) }?;
    Ok(())
}

pub fn gather_wide(gpu: &Gpu, x: &CudaSlice<f32>, ids: &CudaSlice<u32>, y: &mut CudaSlice<f32>, n: u32) -> Result<(), DriverError> {
    let f = gpu.module.load_function("gather_f32")?;
    let cfg = crate::launch::launch_cfg::<768>(n);
    unsafe { gpu.stream.launch_builder(&f).arg(x).arg(ids).arg(y).arg(&n).launch(cfg) }?;
    Ok(())
}

pub fn sum_small(gpu: &Gpu, x: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: u32) -> Result<(), DriverError> {
    let f = gpu.module.load_function("sum_f32")?;
    let cfg = LaunchConfig { grid_dim: (n.div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 256 * 4 };
    unsafe { gpu.stream.launch_builder(&f).arg(x).arg(out).arg(&n).launch(cfg) }?;
    Ok(())
}
'''


def filler(i, lines):
    """A module of about `lines` lines of ordinary Rust with no launch."""
    out = [f"//! Generated module {i}: tensor bookkeeping with no kernel launch.",
           "use std::collections::HashMap;", ""]
    k = 0
    while len(out) < lines:
        out += [
            f"#[derive(Clone, Debug, PartialEq)]",
            f"pub enum Op{k} {{ Add(usize), Mul {{ lhs: usize, rhs: usize }}, Reduce(Vec<usize>), Nop }}",
            "",
            f"pub struct Layout{k}<T> {{ pub shape: Vec<usize>, pub stride: Vec<usize>, pub offset: usize, pub tag: T }}",
            "",
            f"impl<T: Clone + std::fmt::Debug> Layout{k}<T> {{",
            f"    pub const RANK_{k}: usize = {k % 7 + 1};",
            "    pub fn contiguous(shape: &[usize], tag: T) -> Self {",
            "        let mut stride = vec![1; shape.len()];",
            "        for d in (0..shape.len().saturating_sub(1)).rev() { stride[d] = stride[d + 1] * shape[d + 1]; }",
            "        Self { shape: shape.to_vec(), stride, offset: 0, tag }",
            "    }",
            "    pub fn elems(&self) -> usize { self.shape.iter().product() }",
            "    pub fn is_contiguous(&self) -> bool {",
            "        let mut expect = 1;",
            "        for (d, s) in self.shape.iter().zip(&self.stride).rev() {",
            "            if *d != 1 && *s != expect { return false; }",
            "            expect *= d;",
            "        }",
            "        true",
            "    }",
            f"    pub fn apply(&self, op: &Op{k}, cache: &mut HashMap<usize, usize>) -> usize {{",
            "        match op {",
            f"            Op{k}::Add(n) => self.elems() + n,",
            f"            Op{k}::Mul {{ lhs, rhs }} => *cache.entry(*lhs).or_insert(lhs * rhs),",
            f"            Op{k}::Reduce(dims) => dims.iter().map(|d| self.shape.get(*d).copied().unwrap_or(1)).product(),",
            f"            Op{k}::Nop => 0,",
            "        }",
            "    }",
            "    pub fn narrow(&self, dim: usize, start: usize, len: usize) -> Option<Self> {",
            "        let size = *self.shape.get(dim)?;",
            "        if start + len > size { return None; }",
            "        let mut shape = self.shape.clone();",
            "        shape[dim] = len;",
            "        Some(Self { shape, stride: self.stride.clone(), offset: self.offset + start * self.stride[dim], tag: self.tag.clone() })",
            "    }",
            "}",
            "",
            f"pub fn strided_index_{k}(shape: &[usize], stride: &[usize], mut i: usize) -> usize {{",
            "    let mut at = 0;",
            "    for (d, s) in shape.iter().zip(stride).rev() { at += (i % d) * s; i /= d; }",
            "    at",
            "}",
            "",
        ]
        k += 1
    return "\n".join(out[:lines]) + "\n"


def make(dest, files, lines):
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns("target"))
    src = dest / "src"
    (src / "extra.rs").write_text(EXTRA)
    have = sum(len(p.read_text().splitlines()) for p in src.rglob("*.rs"))
    extra_files = max(1, files - len(list(src.rglob("*.rs"))) - 1)
    per_file = max(50, (lines - have) // extra_files)
    (src / "filler").mkdir()
    mods = []
    for i in range(extra_files):
        (src / "filler" / f"m{i}.rs").write_text(filler(i, per_file))
        mods.append(f"pub mod m{i};")
    (src / "filler" / "mod.rs").write_text("\n".join(mods) + "\n")
    lib = (src / "lib.rs").read_text()
    (src / "lib.rs").write_text(lib.replace("pub mod unary;", "pub mod unary;\npub mod extra;\npub mod filler;"))
    rs = list(src.rglob("*.rs"))
    return len(rs), sum(len(p.read_text().splitlines()) for p in rs)


def run(args, runs):
    cmd = [str(BIN), "occupancy", "report", *args]
    subprocess.run(cmd, capture_output=True)
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--files", type=int, default=80)
    p.add_argument("--lines", type=int, default=45000)
    a = p.parse_args()
    plain = WORK / "all"
    nfiles, nlines = make(plain, a.files, a.lines)
    manifest = str(plain / "kernels.manifest.json")
    t_all, out = run(["--all", str(plain), "--kernel-manifest", manifest], a.runs)
    _, js = run(["--all", "--json", str(plain), "--kernel-manifest", manifest], 1)
    report = json.loads(js.stdout)
    launches = report["summary"]["not_annotated"]
    # The annotated variant: each attribute where report --all says it goes.
    annotated = WORK / "annotated"
    make(annotated, a.files, a.lines)
    inserts = {}
    for w in report["wrappers"]:
        if w.get("attribute") and "not_checked" not in w:
            file, line = w["attribute_at"].rsplit(":", 1)
            inserts.setdefault(file, []).append((int(line), w["attribute"]))
    for file, items in inserts.items():
        path = annotated / file
        text = path.read_text().splitlines(keepends=True)
        for line, attribute in sorted(items, reverse=True):
            indent = text[line - 1][: len(text[line - 1]) - len(text[line - 1].lstrip())]
            text.insert(line - 1, f"{indent}{attribute}\n")
        path.write_text("".join(text))
    wrappers = sum(len(v) for v in inserts.values())
    t_report, out2 = run([str(annotated), "--kernel-manifest", str(annotated / "kernels.manifest.json")], a.runs)
    print(f"crate: {nfiles} files, {nlines} lines, {launches} launching functions")
    print(f"report --all (none annotated):        {t_all * 1000:.0f} ms (median of {a.runs})")
    print(f"report ({wrappers} annotated wrappers):      {t_report * 1000:.0f} ms (median of {a.runs})")
    print(out2.stdout.strip().splitlines()[-2])


if __name__ == "__main__":
    main()
