#!/usr/bin/env python3
"""Launches for finding out how the driver chooses a launch's shared-memory configuration.

Run under Nsight Compute on the GPU machine, which records each launch's "Shared Memory
Configuration Size" and block limits:

    ncu --clock-control none --section LaunchStats --section Occupancy --csv \\
        python3 scripts/gpu/smem_config.py --plan plan.tsv > smem_config.csv
    # the second run: set G alone
    ncu ... python3 scripts/gpu/smem_config.py --set G --plan plan_g.tsv > smem_config_g.csv

Without a GPU, `--compile-only` checks that the kernels build (NVRTC from cuda.bindings).

Kernels: `probe_s<S>_r<R>`, S bytes of static shared memory (0, 128, 4096, 4224, 8448,
16384) and R live accumulators per thread (1, 16, 24, 56, 120: 14 to 128 registers), each
using its dynamic shared memory too; `probe_tiny` (the fewest registers ptxas gives). Launches, in this order (the plan's `index` is the ncu ID):

- A: two kernels x blocks 32..1024 x 17 dynamic sizes 0 .. 200000 B (opt-in set only when
  more than 48 KiB - static is asked for), grid 264;
- B: six more kernels x blocks 64, 256, 1024 x 8 dynamic sizes;
- C: carveout preferences 0, 10, 25, 50, 75, 100% on blocks 64 and 256 x 5 dynamic sizes;
- D: grids of 1, 132, 1056, 5000 blocks;
- E: the opt-in attribute unset, 64 KiB and the maximum, at 0 and 4 KiB dynamic;
- F: grids of 1 to 2500 blocks of 256 and 1024 threads of a kernel that runs long enough
  (2000 steps per thread) for its achieved occupancy to show the grid's ceiling;
- G (`--set G`, on its own): blocks of 64 to 1024 threads in steps that include odd warp
  counts x dynamic sizes 0 .. 8 KiB, and 128 B of static shared memory.

Launches the driver answers 0 resident blocks for are left out. Before each launch the
carveout and the opt-in are set (or reset to the default) explicitly, so no launch inherits
an attribute. `--plan` writes one row per launch: index, set, kernel, static_smem,
num_regs, block, grid, dynamic_smem, carveout, opt_in, iters, blocks_per_sm (the driver's
`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudrv  # noqa: E402

KERNELS = [(0, 1), (0, 56), (0, 24), (0, 120), (4096, 1), (16384, 1), (8448, 24), (4224, 16),
           (0, 16), (128, 1), (128, 16)]

SOURCE = r"""
#define NACC {nacc}
#define STATIC_FLOATS {static_floats}
extern "C" __global__ void {name}(const float* __restrict__ in, float* __restrict__ out,
                                  int iters, int dyn_floats)
{{
    extern __shared__ float dyn[];
    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++) acc[i] = in[(threadIdx.x * 7 + i) & 1023];
    for (int it = 0; it < iters; it++) {{
#pragma unroll
        for (int i = 0; i < NACC; i++) acc[i] = fmaf(acc[i], acc[(i + 1) % NACC], 1.0f);
    }}
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < NACC; i++) s += acc[i];
#if STATIC_FLOATS > 0
    __shared__ float st[STATIC_FLOATS];
    st[threadIdx.x % STATIC_FLOATS] = s;
    __syncthreads();
    s += st[(threadIdx.x + 1) % STATIC_FLOATS];
#endif
    if (dyn_floats > 0) {{
        dyn[threadIdx.x % dyn_floats] = s;
        __syncthreads();
        s += dyn[(threadIdx.x + 3) % dyn_floats];
    }}
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}}
#undef NACC
#undef STATIC_FLOATS
"""

# Few registers: what ncu reports as registers per thread below 16.
TINY = r"""
extern "C" __global__ void probe_tiny(const float* __restrict__ in, float* __restrict__ out,
                                      int iters, int dyn_floats)
{
    extern __shared__ float dyn[];
    if (dyn_floats > 0 && threadIdx.x == 0) dyn[0] = 1.0f;
}
"""

OPT_IN_MAX = 232448  # H200: sharedMemPerBlockOptin, static + dynamic
DEFAULT_PER_BLOCK = 49152


def name_of(static, nacc):
    return f"probe_s{static}_r{nacc}"


def source():
    return TINY + "\n".join(
        SOURCE.format(name=name_of(s, r), nacc=r, static_floats=s // 4) for s, r in KERNELS
    )


def plan_g():
    """Set G: block sizes between 64 and 1024 (odd warp counts too) x small dynamic sizes x
    kernels of 14 to 64 registers and 0 or 128 B of static shared memory; and the tiny
    kernel."""
    out = []
    blocks = [64, 96, 128, 160, 192, 256, 384, 512, 640, 768, 896, 1024]
    for k in [(0, 1), (0, 16), (0, 24), (0, 56)]:
        for block in blocks:
            for d in [0, 128, 256, 512, 1024, 2048, 4096, 8192]:
                out.append(("G", k, block, 264, d, -1, None, 1))
    for k in [(128, 1), (128, 16)]:
        for block in blocks:
            for d in [0, 128, 1024]:
                out.append(("G", k, block, 264, d, -1, None, 1))
    for block in [64, 256, 1024]:
        for d in [0, 1024]:
            out.append(("G", "tiny", block, 264, d, -1, None, 1))
    return out


def plan():
    """(set, (static, nacc), block, grid, dynamic, carveout, opt_in, iters) in launch order;
    opt_in None = the default, carveout -1 = the default."""
    out = []
    dyn_a = [0, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
             65536, 98304, 131072, 200000]
    for k in KERNELS[:2]:
        for block in [32, 64, 128, 256, 512, 1024]:
            for d in dyn_a:
                out.append(("A", k, block, 264, d, -1, None, 1))
    dyn_b = [0, 1024, 4096, 8192, 16384, 32768, 65536, 131072]
    for k in KERNELS[2:8]:
        for block in [64, 256, 1024]:
            for d in dyn_b:
                out.append(("B", k, block, 264, d, -1, None, 1))
    for carveout in [0, 10, 25, 50, 75, 100]:
        for block in [64, 256]:
            for d in [0, 2048, 8192, 32768, 65536]:
                out.append(("C", KERNELS[0], block, 264, d, carveout, None, 1))
    for k in KERNELS[:2]:
        for d in [0, 4096, 16384]:
            for grid in [1, 132, 1056, 5000]:
                out.append(("D", k, 256, grid, d, -1, None, 1))
    for opt_in in [None, 65536, OPT_IN_MAX]:
        for d in [0, 4096]:
            out.append(("E", KERNELS[0], 256, 264, d, -1, opt_in, 1))
    for block in [256, 1024]:
        for grid in [1, 7, 66, 117, 131, 132, 133, 200, 264, 500, 1056, 1300, 2112, 2500]:
            out.append(("F", KERNELS[1], block, grid, 0, -1, None, 2000))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plan", help="write the launches' TSV here")
    ap.add_argument("--set", choices=["all", "G"], default="all",
                    help="all: sets A to F; G: set G alone (see plan_g)")
    ap.add_argument("--compile-only", action="store_true",
                    help="no GPU: compile the kernels for sm_90 (and write the cubin to --plan)")
    a = ap.parse_args()
    if a.compile_only:
        cubin, log = cudrv.compile_cubin(source(), "sm_90")
        if a.plan:
            with open(a.plan, "wb") as fh:
                fh.write(cubin)
        print(f"compiled {len(KERNELS) + 1} kernels for sm_90; {len(plan())} + {len(plan_g())} launches planned",
              log)
        return 0
    gpu = cudrv.Gpu()
    cubin, _ = cudrv.compile_cubin(source(), gpu.arch)
    module = gpu.load(cubin)
    funcs = {k: gpu.function(module, name_of(*k)) for k in KERNELS}
    funcs["tiny"] = gpu.function(module, "probe_tiny")
    res = {k: cudrv.resources(f) for k, f in funcs.items()}
    inp = gpu.upload(cudrv.np.arange(1024, dtype=cudrv.np.float32) / 1024.0)
    out = gpu.alloc(5000 * 1024 * 4)
    rows = []
    index = 0
    for set_, k, block, grid, dyn, carveout, opt_in, iters in (plan() if a.set == "all" else plan_g()):
        f = funcs[k]
        static = res[k]["static_smem"]
        needed = static + dyn > DEFAULT_PER_BLOCK
        value = opt_in if opt_in is not None else (OPT_IN_MAX - static if needed else DEFAULT_PER_BLOCK - static)
        if static + dyn > OPT_IN_MAX or dyn > value:
            continue
        cudrv.set_opt_in(f, value)
        cudrv.set_carveout(f, carveout)
        bps = cudrv.blocks_per_sm(f, block, dyn)
        if bps == 0:
            continue
        params = cudrv.args(inp, out, iters, dyn // 4)
        cudrv.launch(gpu, f, grid, block, dyn, params)
        gpu.sync()
        shown_opt_in = "" if (opt_in is None and not needed) else value
        rows.append([index, set_, "probe_tiny" if k == "tiny" else name_of(*k), static, res[k]["num_regs"], block, grid, dyn, carveout,
                     shown_opt_in, iters, bps])
        index += 1
    header = ["index", "set", "kernel", "static_smem", "num_regs", "block", "grid", "dynamic_smem",
              "carveout", "opt_in", "iters", "blocks_per_sm"]
    if a.plan:
        with open(a.plan, "w") as fh:
            fh.write("\t".join(header) + "\n")
            for r in rows:
                fh.write("\t".join(str(v) for v in r) + "\n")
    print(f"{gpu.name} ({gpu.arch}, {gpu.sm_count} SMs, driver {gpu.driver_version}): {len(rows)} launches",
          file=sys.stderr)
    for k in res:
        print(k, res[k], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
