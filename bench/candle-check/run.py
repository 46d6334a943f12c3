#!/usr/bin/env python3
"""Candle check: `cargo check --features cuda` of candle-core, plain and with every launch
`report --annotate` can annotate carrying `#[occupancy::check]`, timed side by side.

    python3 bench/candle-check/run.py CANDLE_CORE_DIR [--work DIR] [--target-dir DIR]
                                      [--runs 7] [--build-override-opt-level 3]
                                      [--cargo-occupancy PATH] [--baseline DIR]
                                      [--stub-kernels]

CANDLE_CORE_DIR is candle-core's published source (the corpus's: `cargo fetch` of
corpus/Cargo.toml unpacks it under ~/.cargo/registry/src/*/candle-core-0.11.1). Nothing of
it is copied into this repository: the script copies it twice under --work (default
target/candle-check), `plain/` and `annotated/`, adds to both the same path dependency on
this checkout's `occupancy` facade and the same resource manifest
(`corpus/resources/candle-kernels.json` as `kernels.manifest.json`, which the attribute
reads for `kernel = "..."`), then runs `cargo occupancy report --all --annotate --features
cuda` on `annotated/` only: the two differ by the attributes alone. An existing `annotated/`
is kept as it is (delete --work to start again). `--baseline DIR` adds a third copy,
`annotated-base`: the same annotated sources with `occupancy` from another checkout of
this repository (`git archive main | tar -x -C DIR`), timed in the same interleaved runs.

`--features cuda` makes cargo run candle-kernels' build script, which compiles every
kernel with nvcc: once, for both copies, in the one --target-dir they share (about 10
minutes on 2 cores). The environment must let it and cudarc's find CUDA; with the PyPI
wheels .ci/run installs (nvcc 13.5):

    N=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))')/nvidia/cu13
    export PATH=$N/bin:$PATH CUDA_HOME=$N CUDA_PATH=$N NVCC=$N/bin/nvcc
    export CUDA_COMPUTE_CAP=90 CUDARC_CUDA_VERSION=13040   # cudarc 0.19 knows CUDA 13.4 at most

`--stub-kernels` takes candle-kernels' build out of the way instead: both copies then
depend on a copy of candle-kernels (next to CANDLE_CORE_DIR, the same version) whose build
script writes its `ptx.rs` and empty PTX files (`cargo check` of candle-core needs only the
constants' types), so no nvcc runs and the check of candle-core itself is what is timed,
as without the stub.

Each timed run touches the copy's src/lib.rs and runs `cargo check --features cuda` with
incremental compilation off (as bench/macro-cost/run.py does), alternating plain and
annotated, so that only candle-core is checked again and every attribute expands again;
the medians and spreads are printed, and the annotated copy's added time. The annotated
copy is timed twice per run: `annotated`, where each attribute finds the expansion its
previous check stored (occupancy-macros/src/cache.rs) and replays it, and
`annotated-cold`, with that cache emptied first, as on a first check or after an edit to
what every attribute reads.
`--build-override-opt-level 3` adds `[profile.dev.build-override] opt-level = 3` to both
copies (the setting README.md suggests to crates with many checked wrappers; the build
scripts and proc macros are then built again, candle-kernels' nvcc run included).
"""

import argparse
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "corpus" / "resources" / "candle-kernels.json"
PROFILE = "[profile.dev.build-override]"


STUB_BUILD = """// Written by bench/candle-check/run.py --stub-kernels: the PTX constants, empty.
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::copy("src/ptx.rs", out.join("ptx.rs")).unwrap();
    for name in [NAMES] {
        fs::write(out.join(name), "").unwrap();
    }
}
"""


def stub_kernels(candle_core, work):
    """A copy of candle-kernels (of candle-core's version, next to it) whose build script
    writes empty PTX files instead of running nvcc; its folder."""
    version = re.search(r'(?m)^\[dependencies\.candle-kernels\]\nversion = "=?([^"]+)"',
                        (candle_core / "Cargo.toml").read_text())
    if not version:
        sys.exit(f"{candle_core}/Cargo.toml names no candle-kernels version")
    source = candle_core.parent / f"candle-kernels-{version.group(1)}"
    if not (source / "src" / "ptx.rs").is_file():
        sys.exit(f"{source} is not candle-kernels' source (cargo fetch it next to candle-core)")
    stub = work / "candle-kernels-stub"
    if not stub.exists():
        shutil.copytree(source, stub, ignore=shutil.ignore_patterns("target"))
        names = re.findall(r'"/(\w+\.ptx)"', (stub / "src" / "ptx.rs").read_text())
        (stub / "build.rs").write_text(
            STUB_BUILD.replace("NAMES", ", ".join(f'"{n}"' for n in names)))
        toml = stub / "Cargo.toml"
        text = re.sub(r"\n\[build-dependencies\.[^\]]+\]\n(?:[^\[\n][^\n]*\n)*", "\n",
                      toml.read_text())
        toml.write_text(re.sub(r"(?m)^links = .*\n", "", text))
    return stub


def prepare(source, crate, opt_level, facade=ROOT, kernels=None):
    """Copies candle-core to `crate` (once) with the facade and the manifest added, and
    `kernels` (a folder) as its candle-kernels when given."""
    if not crate.exists():
        shutil.copytree(source, crate, ignore=shutil.ignore_patterns("target"))
        toml = crate / "Cargo.toml"
        text = toml.read_text() + f'\n[dependencies.occupancy]\npath = "{facade}"\n'
        # A workspace of its own: the default --work is inside this repository's workspace.
        text += "\n[workspace]\n"
        if kernels is not None:
            text = re.sub(r"(?m)^(\[dependencies\.candle-kernels\]\n)",
                          f'\\1path = "{kernels}"\n', text)
        toml.write_text(text)
        shutil.copy(MANIFEST, crate / "kernels.manifest.json")
    toml = crate / "Cargo.toml"
    text = toml.read_text()
    text = re.sub(r"\n\[profile\.dev\.build-override\]\nopt-level = \d\n", "\n", text)
    if opt_level is not None:
        text += f"\n{PROFILE}\nopt-level = {opt_level}\n"
    toml.write_text(text)


def annotate(crate, binary, env):
    """`report --all --annotate --features cuda` on `crate`, unless it carries attributes."""
    if count(crate):
        return
    subprocess.run([str(binary), "occupancy", "report", "--all", "--annotate", "--features", "cuda",
                    "--kernel-manifest", str(crate / "kernels.manifest.json"), str(crate)],
                   env=env, stdout=subprocess.DEVNULL)
    if not count(crate):
        sys.exit(f"report --annotate annotated nothing in {crate}")


def count(crate):
    """The number of `#[occupancy::check` attributes in the crate's sources."""
    return sum(p.read_text().count("#[occupancy::check") for p in (crate / "src").rglob("*.rs"))


def check(crate, env, timed, cold=False):
    if timed:
        (crate / "src" / "lib.rs").touch()
    entries = pathlib.Path(env["CARGO_TARGET_DIR"]) / "debug" / "occupancy-expansions"
    kept = entries.with_name("occupancy-expansions.kept")
    if cold:
        # The attribute's expansion cache (occupancy-macros/src/cache.rs), emptied for this
        # check: every attribute expands from the sources and stores its expansion, as on a
        # first check. The copies share the folder: the others' entries (`annotated-base`'s)
        # are put back after it, so that they still replay.
        shutil.rmtree(kept, ignore_errors=True)
        if entries.exists():
            entries.rename(kept)
    start = time.perf_counter()
    # The findings are the attribute's output, printed on every check: not timed on a terminal.
    done = subprocess.run(["cargo", "check", "-q", "--features", "cuda", "--manifest-path",
                           str(crate / "Cargo.toml")], env=env, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if cold and kept.exists():
        entries.mkdir(parents=True, exist_ok=True)
        for entry in kept.iterdir():
            if not (entries / entry.name).exists():
                entry.rename(entries / entry.name)
        shutil.rmtree(kept, ignore_errors=True)
    if done.returncode != 0:
        sys.exit(f"cargo check failed in {crate}:\n{done.stderr[-4000:]}")
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candle_core", type=pathlib.Path, help="candle-core's source folder")
    ap.add_argument("--work", type=pathlib.Path, default=ROOT / "target" / "candle-check")
    ap.add_argument("--target-dir", type=pathlib.Path, default=None, help="default: WORK/target")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--build-override-opt-level", type=int, choices=[0, 1, 2, 3], default=None)
    ap.add_argument("--cargo-occupancy", type=pathlib.Path,
                    default=ROOT / "target" / "release" / "cargo-occupancy")
    ap.add_argument("--baseline", type=pathlib.Path, default=None,
                    help="another checkout of this repository, its attribute timed as annotated-base")
    ap.add_argument("--stub-kernels", action="store_true",
                    help="candle-kernels with empty PTX, built without nvcc")
    args = ap.parse_args()
    if not (args.candle_core / "src" / "cuda_backend").is_dir():
        sys.exit(f"{args.candle_core} is not candle-core's source")
    target = args.target_dir or args.work / "target"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), CARGO_INCREMENTAL="0")
    env.setdefault("CUDA_COMPUTE_CAP", "90")
    env.pop("OCCUPANCY_POLICY", None)
    crates = {name: args.work / name for name in ("plain", "annotated")}
    args.work.mkdir(parents=True, exist_ok=True)
    kernels = stub_kernels(args.candle_core, args.work.resolve()) if args.stub_kernels else None
    for crate in crates.values():
        prepare(args.candle_core, crate, args.build_override_opt_level, kernels=kernels)
    # The same lock file for both, so that they build against the same dependencies.
    check(crates["plain"], env, timed=False)
    shutil.copy(crates["plain"] / "Cargo.lock", crates["annotated"] / "Cargo.lock")
    annotate(crates["annotated"], args.cargo_occupancy, env)
    check(crates["annotated"], env, timed=False)
    if args.baseline:
        base = args.work / "annotated-base"
        prepare(args.candle_core, base, args.build_override_opt_level, args.baseline.resolve(),
                kernels)
        shutil.rmtree(base / "src")
        shutil.copytree(crates["annotated"] / "src", base / "src")
        shutil.copy(crates["plain"] / "Cargo.lock", base / "Cargo.lock")
        check(base, env, timed=False)
        crates["annotated-base"] = base
    # The annotated copy twice: `annotated` with the expansions of its previous check stored
    # (what a check after an edit elsewhere costs), `annotated-cold` with none.
    crates["annotated-cold"] = crates["annotated"]
    times = {name: [] for name in crates}
    for _ in range(args.runs):
        for name, crate in crates.items():  # interleaved, so drift hits both alike
            times[name].append(check(crate, env, timed=True, cold=name == "annotated-cold"))
    level = "default" if args.build_override_opt_level is None else args.build_override_opt_level
    print(f"cargo check --features cuda of candle-core, median of {args.runs} runs, "
          f"build-override opt-level {level}; {count(crates['annotated'])} functions annotated:")
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        print(f"  {name:<14} {median[name]:7.3f} s  (spread {max(t) - min(t):.3f} s; runs "
              f"{', '.join(f'{x:.2f}' for x in t)})")
    for name in crates:
        if name != "plain":
            added = median[name] - median["plain"]
            print(f"{name}: {added * 1000:+.0f} ms, {added / median['plain'] * 100:+.1f}% of the plain check")


if __name__ == "__main__":
    main()
