#!/usr/bin/env python3
"""The lints' effect, measured: each lint's firing launch and the launch after the lint's
own suggested fix, timed with CUDA events on the same inputs, and (under Nsight Compute)
their achieved occupancy.

Three steps:

    # here, no GPU: compile every variant with NVRTC for sm_90 (cubins + plan.json)
    python3 scripts/gpu/lint_effect.py build --out .device/15/lint
    # on the GPU machine: median of --runs timed launches per variant (JSON)
    python3 scripts/gpu/lint_effect.py time --dir .device/15/lint --runs 30 > timing.json
    # on the GPU machine, under ncu: each variant launched once, in plan order (ncu ID = index)
    ncu --clock-control none --section LaunchStats --section Occupancy --csv \\
        python3 scripts/gpu/lint_effect.py profile --dir .device/15/lint > lint_effect.csv

The variants (`CASES`): the lint, before/after, the kernel (the project's kernels/*.cu, or
scripts/gpu/lint_effect.cu), preprocessor defines or a source patch (the fix), block,
grid, dynamic shared memory, opt-in and the problem. A grid of "wave" is one full wave:
the driver's resident blocks per SM x the SM count (the kernels loop over the work); a
grid of "tiles" covers the image once. The fixes are what `cargo occupancy calc` prints
for the launch (docs/ACHIEVED.md quotes them).

`time` also checks that before and after compute the same output (within 1e-5 relative).
"""

import argparse
import ctypes
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cudrv  # noqa: E402

SGEMM_TILED_LB = ("__launch_bounds__(T_THREADS)\nsgemm_tiled", "__launch_bounds__(T_THREADS, 8)\nsgemm_tiled")
SGEMM_128_LB = ("__launch_bounds__(R_THREADS, 2)\nsgemm_128x128_8x8", "__launch_bounds__(R_THREADS, 4)\nsgemm_128x128_8x8")

# (case, role, source, kernel, defines, patch, block, grid, dynamic smem, opt-in, problem)
CASES = [
    ("block_limit", "before", "kernels/saxpy.cu", "vector_add", {}, None, (32, 1, 1), "wave", 0, None, "vec"),
    ("block_limit", "after", "kernels/saxpy.cu", "vector_add", {}, None, (64, 1, 1), "wave", 0, None, "vec"),
    ("register_step", "before", "scripts/gpu/lint_effect.cu", "orbit", {"ORBIT_MIN_BLOCKS": 1}, None,
     (256, 1, 1), "wave", 0, None, "orbit"),
    ("register_step", "after", "scripts/gpu/lint_effect.cu", "orbit", {"ORBIT_MIN_BLOCKS": 6}, None,
     (256, 1, 1), "wave", 0, None, "orbit"),
    ("smem_step", "before", "scripts/gpu/lint_effect.cu", "staged_reverse", {}, None, (512, 1, 1), "wave",
     57600, 57600, "staged"),
    ("smem_step", "after", "scripts/gpu/lint_effect.cu", "staged_reverse", {}, None, (512, 1, 1), "wave",
     57344, 57344, "staged"),
    ("partial_warp", "before", "kernels/conv2d.cu", "conv2d", {}, None, (20, 20, 1), "tiles", 2404, None, "conv"),
    ("partial_warp", "after", "kernels/conv2d.cu", "conv2d", {}, None, (32, 12, 1), "tiles", 2404, None, "conv"),
    ("low_occupancy", "before", "kernels/sgemm.cu", "sgemm_tiled", {}, None, (16, 16, 1), "gemm64", 0, None, "gemm"),
    ("low_occupancy", "after", "kernels/sgemm.cu", "sgemm_tiled", {}, SGEMM_TILED_LB, (16, 16, 1), "gemm64", 0,
     None, "gemm"),
    ("low_occupancy_128", "before", "kernels/sgemm.cu", "sgemm_128x128_8x8", {}, None, (256, 1, 1), "gemm128", 0,
     None, "gemm"),
    ("low_occupancy_128", "after", "kernels/sgemm.cu", "sgemm_128x128_8x8", {}, SGEMM_128_LB, (256, 1, 1),
     "gemm128", 0, None, "gemm"),
    ("tail_effect", "before", "kernels/saxpy.cu", "saxpy", {}, None, (256, 1, 1), 1320, 0, None, "vec"),
    ("tail_effect", "after", "kernels/saxpy.cu", "saxpy", {}, None, (256, 1, 1), 1056, 0, None, "vec"),
    ("undersized_grid", "before", "kernels/saxpy.cu", "saxpy", {}, None, (256, 1, 1), 117, 0, None, "vec"),
    ("undersized_grid", "after", "kernels/saxpy.cu", "saxpy", {}, None, (256, 1, 1), 1056, 0, None, "vec"),
]

VEC_N = 1 << 27  # floats per array: 512 MiB
ORBIT_N = 1 << 22
ORBIT_ITERS = 256
CONV_W = CONV_H = 8192
CONV_RADIUS = 2
GEMM = 4096  # M = N = K


def build(out):
    os.makedirs(out, exist_ok=True)
    plan = []
    for i, (case, role, src, kernel, defines, patch, block, grid, dyn, opt_in, problem) in enumerate(CASES):
        text = open(os.path.join(ROOT, src)).read()
        if patch is not None:
            old, new = patch
            if text.count(old) != 1:
                raise SystemExit(f"{src}: the fix's patch expects exactly one `{old!r}`")
            text = text.replace(old, new)
        options = [f"-D{k}={v}" for k, v in defines.items()]
        cubin, log = cudrv.compile_cubin(text, "sm_90", options, name=os.path.basename(src))
        name = f"{i:02d}-{case}-{role}.cubin"
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(cubin)
        plan.append({"index": i, "case": case, "role": role, "source": src, "kernel": kernel,
                     "defines": defines, "patch": patch, "block": block, "grid": grid,
                     "dynamic_smem": dyn, "opt_in": opt_in, "problem": problem, "cubin": name})
    with open(os.path.join(out, "plan.json"), "w") as fh:
        json.dump(plan, fh, indent=1)
    print(f"{len(plan)} variants compiled into {out}")


class Problems:
    """The inputs, allocated once per problem and shared by its variants."""

    def __init__(self, gpu):
        self.gpu = gpu
        self.cache = {}

    def get(self, name):
        if name not in self.cache:
            self.cache[name] = getattr(self, name)()
        return self.cache[name]

    def vec(self):
        rng = np.random.default_rng(1)
        x = rng.uniform(-1, 1, VEC_N).astype(np.float32)
        y = rng.uniform(-1, 1, VEC_N).astype(np.float32)
        g = self.gpu
        return {"x": g.upload(x), "y": g.upload(y), "out": g.alloc(VEC_N * 4), "n": VEC_N, "like": x}

    def orbit(self):
        rng = np.random.default_rng(2)
        c = rng.uniform(-1.5, 0.5, (ORBIT_N, 2)).astype(np.float32)
        g = self.gpu
        return {"c": g.upload(c), "out": g.alloc(ORBIT_N * 4), "n": ORBIT_N,
                "like": np.empty(ORBIT_N, np.float32)}

    def staged(self):
        p = self.get("vec")
        return {"in": p["x"], "out": self.gpu.alloc(VEC_N * 4), "n": VEC_N, "like": p["like"]}

    def conv(self):
        rng = np.random.default_rng(3)
        img = rng.uniform(0, 1, CONV_W * CONV_H).astype(np.float32)
        fw = 2 * CONV_RADIUS + 1
        flt = rng.uniform(-0.2, 0.2, fw * fw).astype(np.float32)
        g = self.gpu
        return {"in": g.upload(img), "filter": g.upload(flt), "out": g.alloc(img.nbytes), "like": img}

    def gemm(self):
        rng = np.random.default_rng(4)
        a = rng.uniform(-1, 1, GEMM * GEMM).astype(np.float32)
        b = rng.uniform(-1, 1, GEMM * GEMM).astype(np.float32)
        g = self.gpu
        return {"a": g.upload(a), "b": g.upload(b), "c": g.alloc(a.nbytes), "like": a}


def params_for(v, p):
    kernel = v["kernel"]
    if kernel == "vector_add":
        return cudrv.args(ctypes.c_uint64(p["n"]), p["x"], p["y"], p["out"])
    if kernel == "saxpy":
        return cudrv.args(ctypes.c_uint64(p["n"]), 2.0, p["x"], p["y"], p["out"])
    if kernel == "orbit":
        return cudrv.args(p["c"], p["out"], ctypes.c_uint32(p["n"]), ORBIT_ITERS)
    if kernel == "staged_reverse":
        return cudrv.args(p["in"], p["out"], ctypes.c_uint32(p["n"]), ctypes.c_uint32(v["dynamic_smem"] // 4))
    if kernel == "conv2d":
        return cudrv.args(p["in"], p["out"], CONV_W, CONV_H, p["filter"], CONV_RADIUS)
    if kernel.startswith("sgemm"):
        return cudrv.args(GEMM, GEMM, GEMM, 1.0, p["a"], GEMM, p["b"], GEMM, 0.0, p["c"], GEMM)
    raise ValueError(kernel)


def out_ptr(p):
    return p.get("out", p.get("c"))


def prepare(gpu, directory):
    plan = json.load(open(os.path.join(directory, "plan.json")))
    problems = Problems(gpu)
    ready = []
    for v in plan:
        module = gpu.load(open(os.path.join(directory, v["cubin"]), "rb").read())
        f = gpu.function(module, v["kernel"])
        if v["opt_in"] is not None:
            cudrv.set_opt_in(f, v["opt_in"])
        block = tuple(v["block"])
        threads = block[0] * block[1] * block[2]
        bps = cudrv.blocks_per_sm(f, threads, v["dynamic_smem"])
        grid = v["grid"]
        if grid == "wave":
            grid = (bps * gpu.sm_count, 1, 1)
        elif grid == "tiles":
            grid = (-(-CONV_W // block[0]), min(-(-CONV_H // block[1]), 65535), 1)
        elif grid == "gemm64":
            grid = (GEMM // 64, GEMM // 64, 1)
        elif grid == "gemm128":
            grid = (GEMM // 128, GEMM // 128, 1)
        else:
            grid = (int(grid), 1, 1)
        p = problems.get(v["problem"])
        ready.append((v, f, grid, block, p, params_for(v, p), bps, cudrv.resources(f)))
    return ready


def time_all(a):
    gpu = cudrv.Gpu()
    results = []
    outputs = {}
    for v, f, grid, block, p, params, bps, res in prepare(gpu, a.dir):
        gpu.memset(out_ptr(p), p["like"].nbytes)
        times = cudrv.time_launches(gpu, f, grid, block, v["dynamic_smem"], params, a.runs)
        got = gpu.download(out_ptr(p), p["like"])
        same = None
        if v["role"] == "before":
            outputs[v["case"]] = got
        elif v["case"] in outputs:
            ref = outputs.pop(v["case"])
            same = bool(np.allclose(got, ref, rtol=1e-5, atol=1e-5))
        t = np.array(times)
        row = {"index": v["index"], "case": v["case"], "role": v["role"], "kernel": v["kernel"],
               "block": block, "grid": grid, "dynamic_smem": v["dynamic_smem"], "blocks_per_sm": bps,
               **res, "runs": len(times), "median_ms": float(np.median(t)), "min_ms": float(t.min()),
               "max_ms": float(t.max()), "same_output_as_before": same}
        results.append(row)
        print(json.dumps(row), file=sys.stderr)
    json.dump({"device": gpu.name, "arch": gpu.arch, "sm_count": gpu.sm_count,
               "driver_version": gpu.driver_version, "results": results}, sys.stdout, indent=1)
    print()


def profile_all(a):
    gpu = cudrv.Gpu()
    for v, f, grid, block, p, params, bps, res in prepare(gpu, a.dir):
        cudrv.launch(gpu, f, grid, block, v["dynamic_smem"], params)
        gpu.sync()
        print(v["index"], v["case"], v["role"], v["kernel"], grid, block, bps, res, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    t = sub.add_parser("time")
    t.add_argument("--dir", required=True)
    t.add_argument("--runs", type=int, default=30)
    p = sub.add_parser("profile")
    p.add_argument("--dir", required=True)
    a = ap.parse_args()
    if a.step == "build":
        build(a.out)
    elif a.step == "time":
        time_all(a)
    else:
        profile_all(a)


if __name__ == "__main__":
    main()
