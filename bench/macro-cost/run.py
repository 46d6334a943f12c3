#!/usr/bin/env python3
"""Macro cost: `cargo check` time of a crate with 200 launch wrappers, annotated with
`#[occupancy::check]`, with a minimal identity attribute (parses the function with syn and
re-emits it), and with no attribute. Prints the added milliseconds per wrapper of each.

Two styles of wrappers, each in all three variants:

- `literal`: the launch values in the attribute (`block = 256, regs = 24`), a body with
  no launch configuration;
- `body`: the attribute gives only the registers; the body builds a `LaunchConfig` from
  constants of another module (`consts::BLOCK_1`, `consts::SMEM`, arithmetic and a cast),
  which the attribute reads and the compiler confirms.

    python3 bench/macro-cost/run.py [--wrappers 200] [--runs 7] [--macro-opt-level 3] [--styles literal,body]
                                    [--baseline DIR]

`ours` is timed with the attribute's expansion cache filled (each run after the first
replays the expansions: what a `cargo check` after an edit elsewhere in the crate costs);
`cold` is the same crate with the cache emptied before each run (its own target directory):
the first check, or the check after an edit to what the wrappers read.

`--baseline DIR` adds another variant, `#[occupancy::check]` from another checkout of this
repository (`git archive main | tar -x -C DIR`), timed in the same interleaved runs: the
cost before and after a change, measured together.

Each variant is a generated crate in target/macro-cost/ sharing one target directory (the
dependencies are built once, before timing). A timed run touches the crate's lib.rs and
runs `cargo check` with incremental compilation off, so that only that crate is checked and
every attribute expands again; the median of the runs is reported.

Cargo builds proc macros (and their dependencies) with the profile's `build-override`
settings, which for `dev` means opt-level 0. `--macro-opt-level 3` adds
`[profile.dev.build-override] opt-level = 3` to every variant, the setting README.md
suggests to crates with many checked wrappers.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORK = ROOT / "target" / "macro-cost"


def wrapper(i, attribute, style):
    if attribute in ("base", "cold"):
        attribute = "ours"
    block = [128, 256, 512, 1024][i % 4]
    regs = [16, 24, 32][i % 3]
    launch = f"block = {block}, " if style == "literal" else ""
    attr = {
        "ours": f'#[occupancy::check({launch}regs = {regs}, target = ["sm_80", "sm_90", "sm_86"])]\n',
        "identity": "#[identity_attr::identity]\n",
        "none": "",
    }[attribute]
    if style == "literal":
        return (
            f"/// Launch wrapper {i}.\n{attr}pub fn launch_{i}(n: u32, x: &mut [f32], a: f32) -> u32 {{\n"
            f"    for v in x.iter_mut() {{ *v *= a; }}\n"
            f"    n.div_ceil({block})\n}}\n\n"
        )
    b = i % 4
    return (
        f"/// Launch wrapper {i}.\n{attr}pub fn launch_{i}(n: u32) -> LaunchConfig {{\n"
        f"    let cfg = LaunchConfig {{\n"
        f"        grid_dim: (n.div_ceil(consts::BLOCK_{b}), 1, 1),\n"
        f"        block_dim: (consts::BLOCK_{b}, 1, 1),\n"
        f"        shared_mem_bytes: consts::SMEM * consts::WARP as u32,\n"
        f"    }};\n"
        f"    cfg\n}}\n\n"
    )


BODY_PRELUDE = """#[derive(Clone, Copy)]
pub struct LaunchConfig {
    pub grid_dim: (u32, u32, u32),
    pub block_dim: (u32, u32, u32),
    pub shared_mem_bytes: u32,
}

mod consts;

"""

CONSTS = """pub const WARP: usize = 32;
pub const BLOCK_0: u32 = 128;
pub const BLOCK_1: u32 = 2 * BLOCK_0;
pub const BLOCK_2: u32 = BLOCK_1 * 2;
pub const BLOCK_3: u32 = 1024;
pub const SMEM: u32 = 16;
"""


def make_crate(attribute, style, wrappers, macro_opt_level, baseline=None):
    crate = WORK / f"gen-{style}-{attribute}"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    deps = {
        "ours": f'occupancy = {{ path = "{ROOT}" }}\n',
        "cold": f'occupancy = {{ path = "{ROOT}" }}\n',
        "base": f'occupancy = {{ path = "{baseline}" }}\n',
        "identity": f'identity-attr = {{ path = "{ROOT / "bench/macro-cost/identity"}" }}\n',
        "none": "",
    }[attribute]
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "gen-{style}-{attribute}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[dependencies]\n{deps}\n[workspace]\n"
        + ("" if macro_opt_level is None else f"\n[profile.dev.build-override]\nopt-level = {macro_opt_level}\n")
    )
    # A policy that allows nothing the wrappers trigger, so all three variants compile alike.
    (crate / "occupancy.toml").write_text('min_occupancy = "0%"\n')
    prelude = BODY_PRELUDE if style == "body" else ""
    body = "#![deny(warnings)]\n//! Generated.\n\n" + prelude + "".join(
        wrapper(i, attribute, style) for i in range(wrappers)
    )
    (crate / "src" / "lib.rs").write_text(body)
    if style == "body":
        (crate / "src" / "consts.rs").write_text(CONSTS)
    return crate


def check(crate, env):
    if crate.name.endswith("-cold"):
        env = dict(env, CARGO_TARGET_DIR=str(WORK / "target-cold"))
        subprocess.run(["rm", "-rf", str(WORK / "target-cold" / "debug" / "occupancy-expansions")], check=True)
    (crate / "src" / "lib.rs").touch()
    start = time.perf_counter()
    subprocess.run(["cargo", "check", "-q", "--manifest-path", str(crate / "Cargo.toml")], env=env, check=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wrappers", type=int, default=200)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--macro-opt-level", type=int, choices=[0, 1, 2, 3], default=None)
    ap.add_argument("--styles", default="literal,body")
    ap.add_argument("--baseline", default=None, help="another checkout of this repository, timed as `base`")
    args = ap.parse_args()
    variants = ("none", "identity", "ours", "cold") + (("base",) if args.baseline else ())
    baseline = pathlib.Path(args.baseline).resolve() if args.baseline else None
    env = dict(os.environ, CARGO_TARGET_DIR=str(WORK / "target"), CARGO_INCREMENTAL="0")
    styles = args.styles.split(",")
    crates = {
        (s, a): make_crate(a, s, args.wrappers, args.macro_opt_level, baseline)
        for s in styles
        for a in variants
    }
    for crate in crates.values():
        check(crate, env)
    times = {k: [] for k in crates}
    for _ in range(args.runs):
        for k, crate in crates.items():  # interleaved, so drift hits every variant alike
            times[k].append(check(crate, env))
    median = {k: statistics.median(t) for k, t in times.items()}
    level = "default" if args.macro_opt_level is None else args.macro_opt_level
    print(f"cargo check of {args.wrappers} wrappers, median of {args.runs} runs, proc-macro opt-level {level}:")
    for k in crates:
        spread = max(times[k]) - min(times[k])
        print(f"  {k[0]:<8} {k[1]:<9} {median[k] * 1000:8.1f} ms  (spread {spread * 1000:.1f} ms)")
    for s in styles:
        per = lambda a: (median[(s, a)] - median[(s, "none")]) * 1000 / args.wrappers
        print(f"{s}: added per wrapper: identity {per('identity'):.3f} ms, occupancy::check {per('ours'):.3f} ms "
              f"({per('ours') / per('identity'):.2f}x the identity attribute), "
              f"cold cache {per('cold'):.3f} ms ({per('cold') / per('identity'):.2f}x)")
        if args.baseline:
            print(f"{s}: baseline occupancy::check {per('base'):.3f} ms "
                  f"({per('base') / per('identity'):.2f}x the identity attribute)")


if __name__ == "__main__":
    main()
