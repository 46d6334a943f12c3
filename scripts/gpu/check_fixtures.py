#!/usr/bin/env python3
"""The resource reader and the engine on the probe-kernel cubin fixtures, against a real GPU.

Two steps, because the GPU machine has no cargo:

    # here (builds nothing on the GPU machine): expected values from the reader and engine
    python3 scripts/gpu/check_fixtures.py prepare --bin target/release/cargo-occupancy --out .device/fixtures
    # on the GPU machine (cc 9.0): load each cubin, compare
    python3 scripts/gpu/check_fixtures.py check --dir .device/fixtures

`prepare` runs `cargo occupancy inspect --json` on the sm_90 / sm_90a probe cubins of every
NVRTC version in `occupancy-core/tests/fixtures/`, and `cargo occupancy batch` for every
kernel at block sizes 1..=1024 and three dynamic shared memory sizes (with the kernel's
registers, static shared memory, named barriers and launch bounds as the reader gives them).

`check` loads each cubin with `cuModuleLoadData` and compares, per kernel:
`CU_FUNC_ATTRIBUTE_NUM_REGS`, `SHARED_SIZE_BYTES`, `LOCAL_SIZE_BYTES` with the reader, the
`REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH` with the reader's cluster dims, and
`cuOccupancyMaxActiveBlocksPerMultiprocessor` with the engine's answers (named barriers
included: the probe kernels use up to 16). It prints counts and every disagreement and
exits 1 on any.
"""

import argparse
import json
import os
import subprocess
import sys

FIXTURES = "occupancy-core/tests/fixtures"
CUBINS = [
    "nvrtc-11.8/probe.sm_90.cubin",
    "nvrtc-12.9/probe.sm_90.cubin",
    "nvrtc-12.9/probe.sm_90a.cubin",
    "nvrtc-13.5/probe.sm_90a.cubin",
]
DYNAMIC = [0, 4096, 30000]


def prepare(args):
    os.makedirs(args.out, exist_ok=True)
    kernels = []
    for rel in CUBINS:
        path = os.path.join(FIXTURES, rel)
        out = subprocess.run([args.bin, "inspect", "--json", path], check=True, capture_output=True, text=True)
        for k in json.loads(out.stdout):
            k["cubin"] = rel
            kernels.append(k)
    rows = ["cubin\tkernel\tarch\tblock_size\tregisters_per_thread\tstatic_smem\tdynamic_smem\tbarriers\tmax_threads_per_block"]
    for k in kernels:
        barriers = k["barriers"] if k["barriers"] is not None else 1
        max_threads = k["max_threads_per_block"] or 1024
        for dyn in DYNAMIC:
            for block in range(1, 1025):
                rows.append(
                    f"{k['cubin']}\t{k['kernel']}\tsm_90\t{block}\t{k['registers_per_thread']}\t{k['static_smem']}"
                    f"\t{dyn}\t{barriers}\t{max_threads}"
                )
    batch = subprocess.run([args.bin, "batch"], input="\n".join(rows) + "\n", check=True, capture_output=True, text=True)
    with open(os.path.join(args.out, "kernels.json"), "w") as f:
        json.dump(kernels, f)
    with open(os.path.join(args.out, "expected.tsv"), "w") as f:
        f.write(batch.stdout)
    for rel in CUBINS:
        dest = os.path.join(args.out, rel.replace("/", "__"))
        with open(os.path.join(FIXTURES, rel), "rb") as src, open(dest, "wb") as dst:
            dst.write(src.read())
    print(f"prepared {len(kernels)} kernels, {len(rows) - 1} occupancy rows in {args.out}")


def check(args):
    from cuda.bindings import driver as cu

    def ok(result):
        err = result[0] if isinstance(result, tuple) else result
        if err != cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(str(err))
        return result[1] if isinstance(result, tuple) and len(result) == 2 else result[1:]

    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    with open(os.path.join(args.dir, "kernels.json")) as f:
        kernels = json.load(f)
    expected = {}
    with open(os.path.join(args.dir, "expected.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {h: i for i, h in enumerate(header)}
        for line in f:
            c = line.rstrip("\n").split("\t")
            expected[(c[0], c[1], int(c[col["block_size"]]), int(c[col["dynamic_smem"]]))] = c[col["blocks_per_sm"]]
    counts = {}
    bad = []

    def record(what, agrees, detail):
        n, a = counts.get(what, (0, 0))
        counts[what] = (n + 1, a + (1 if agrees else 0))
        if not agrees:
            bad.append(f"{what}: {detail}")

    A = cu.CUfunction_attribute
    modules = {}
    for k in kernels:
        rel = k["cubin"]
        if rel not in modules:
            with open(os.path.join(args.dir, rel.replace("/", "__")), "rb") as f:
                image = f.read()
            result = cu.cuModuleLoadData(image)
            if result[0] != cu.CUresult.CUDA_SUCCESS:
                print(f"{rel}: cuModuleLoadData failed: {result[0]} (skipped)")
                modules[rel] = None
                continue
            modules[rel] = result[1]
        module = modules[rel]
        if module is None:
            continue
        func = ok(cu.cuModuleGetFunction(module, k["kernel"].encode()))
        name = f"{rel}:{k['demangled'] or k['kernel']}"
        attr = lambda a: ok(cu.cuFuncGetAttribute(a, func))
        record("reader: registers", attr(A.CU_FUNC_ATTRIBUTE_NUM_REGS) == k["registers_per_thread"],
               f"{name}: driver {attr(A.CU_FUNC_ATTRIBUTE_NUM_REGS)} reader {k['registers_per_thread']}")
        record("reader: static shared memory", attr(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == k["static_smem"],
               f"{name}: driver {attr(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)} reader {k['static_smem']}")
        record("reader: local memory", attr(A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == k["local_bytes"],
               f"{name}: driver {attr(A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)} reader {k['local_bytes']}")
        dims = [attr(A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH), attr(A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT),
                attr(A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)]
        want = k["cluster_dims"] or [0, 0, 0]
        record("reader: required cluster dims", dims == list(want), f"{name}: driver {dims} reader {want}")
        if k["cluster_dims"]:
            continue  # launches of these need the cluster attribute; plain occupancy is refused
        for dyn in DYNAMIC:
            for block in range(1, 1025):
                result = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, block, dyn)
                got = str(result[1]) if result[0] == cu.CUresult.CUDA_SUCCESS else "error"
                want = expected[(rel, k["kernel"], block, dyn)]
                agrees = got == want or (got == "error" and want == "0")
                record("engine: resident blocks per SM", agrees, f"{name} block {block} dyn {dyn}: driver {got} engine {want}")
    # A launch over the kernel's __launch_bounds__ fails, although the occupancy query counts
    # it (what launch_impossible says): k_bounds is __launch_bounds__(256, 2).
    import numpy as np

    for rel, module in modules.items():
        if module is None:
            continue
        func = ok(cu.cuModuleGetFunction(module, b"k_bounds"))
        dout = ok(cu.cuMemAlloc(4096 * 4))
        din = ok(cu.cuMemAlloc(4096 * 4))
        values = [np.array([int(dout)], dtype=np.uint64), np.array([int(din)], dtype=np.uint64), np.array([8], dtype=np.int32)]
        params = np.array([v.ctypes.data for v in values], dtype=np.uint64)
        for threads, should_launch in ((256, True), (512, False)):
            err = cu.cuLaunchKernel(func, 2, 1, 1, threads, 1, 1, 0, 0, params.ctypes.data, 0)[0]
            if err == cu.CUresult.CUDA_SUCCESS:
                err = cu.cuCtxSynchronize()[0]
            launched = err == cu.CUresult.CUDA_SUCCESS
            record("launch bounds: a launch over them fails", launched == should_launch,
                   f"{rel}: k_bounds with {threads} threads: {err}")
            print(f"{rel}: k_bounds with {threads} threads: {err}")
        cu.cuMemFree(dout)
        cu.cuMemFree(din)
    for what, (n, a) in sorted(counts.items()):
        print(f"{what:<40} {n:>8} checked {a:>8} agree")
    for b in bad[:100]:
        print("DISAGREE", b)
    print("fixtures: 100% agreement" if not bad else f"fixtures: {len(bad)} disagreements")
    return 0 if not bad else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--bin", required=True, help="the cargo-occupancy binary")
    p.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    args = ap.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
