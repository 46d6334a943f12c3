#!/usr/bin/env python3
"""Record the cluster-launch limits the engine's lints rest on, on a real cc 9.0+ GPU.

Run on the GPU machine (needs `cuda.bindings` with NVRTC, a driver, numpy; `ptxas` on the
PATH for the last part):

    python3 scripts/gpu/cluster_limits_probe.py            # prints one TSV to stdout
    python3 scripts/gpu/cluster_limits_probe.py --compile-only --ptxas-archs sm_50,sm_52,...

Rows (`what`, `input`, `answer`):

- `max_potential_cluster_size`: `cuOccupancyMaxPotentialClusterSize` of a 256-thread
  launch with `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` 0 and 1.
- `max_active_clusters`: `cuOccupancyMaxActiveClusters` at cluster sizes 3, 16 and 17
  (256 threads, no shared memory), non-portable allowed.
- `launch`: `cuLaunchKernelEx` with a cluster shape, a grid and the non-portable attribute,
  then `cuCtxSynchronize`: the CUresult of each (`CUDA_SUCCESS` when it ran).
- `ptxas_static_smem`: whether ptxas accepts 49152 and 49153 bytes of static shared memory
  for sm_90 and sm_110, or the `--ptxas-archs` given (the ptxas on the PATH, with its error
  line). `--compile-only` needs no GPU: with the pip package `nvidia-cuda-nvcc-cu12`'s
  ptxas on the PATH it checks every architecture that ptxas knows.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

try:
    from cuda.bindings import driver as cu
    from cuda.bindings import nvrtc
except ImportError:  # cuda-python 12.x before the cuda.bindings namespace
    from cuda import cuda as cu  # type: ignore
    from cuda import nvrtc  # type: ignore

SOURCE = r"""
extern "C" __global__ void mark(unsigned *out) {
    unsigned id = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == 0) out[id] = 1u;
}
"""

PTX_STATIC = """.version {version}
.target {sm}
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  .shared .align 4 .b8 buf[{bytes}];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, buf;
  ld.shared.u32 %r2, [%r1];
  st.global.u32 [%rd1], %r2;
  ret;
}}
"""


class CudaError(Exception):
    pass


def name_of(status):
    try:
        _, s = cu.cuGetErrorName(status)
        return s.decode() if isinstance(s, bytes) else str(status)
    except Exception:  # noqa: BLE001 - any failure: fall back to the enum's repr
        return str(status)


def ok(result):
    if not isinstance(result, tuple):
        result = (result,)
    status, rest = result[0], result[1:]
    if int(status) != 0:
        if isinstance(status, nvrtc.nvrtcResult):
            raise CudaError(f"NVRTC {status}")
        raise CudaError(name_of(status))
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def compile_cubin(arch):
    prog = ok(nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"limits.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{arch}".encode()]
    status = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0]
    if int(status) != 0:
        size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
        log = b" " * size
        ok(nvrtc.nvrtcGetProgramLog(prog, log))
        raise CudaError(log.decode(errors="replace"))
    size = ok(nvrtc.nvrtcGetCUBINSize(prog))
    cubin = b" " * size
    ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
    return cubin


def config(grid, block, cluster):
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block, 1, 1
    cfg.sharedMemBytes = 0
    cfg.hStream = cu.CUstream(0)
    attrs = []
    if cluster is not None:
        a = cu.CUlaunchAttribute()
        a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = cluster
        attrs.append(a)
    cfg.attrs = attrs
    cfg.numAttrs = len(attrs)
    return cfg


def set_non_portable(func, value):
    attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    ok(cu.cuFuncSetAttribute(func, attr, value))


def ptxas_rows(archs):
    rows = []
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return [("ptxas_static_smem", "-", "no ptxas on the PATH")]
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    release = [line for line in version.splitlines() if "release" in line]
    rows.append(("ptxas_version", "-", (release or ["?"])[0].strip()))
    with tempfile.TemporaryDirectory() as tmp:
        for sm in archs:
            for n in (49152, 49153):
                ptx = os.path.join(tmp, "k.ptx")
                with open(ptx, "w") as f:
                    ptx_isa = "9.0" if sm == "sm_110" else "8.8"
                    f.write(PTX_STATIC.format(version=ptx_isa, sm=sm, bytes=n))
                p = subprocess.run(
                    [ptxas, f"-arch={sm}", ptx, "-o", os.path.join(tmp, "k.cubin")],
                    capture_output=True,
                    text=True,
                )
                err = " ".join(
                    line.strip() for line in p.stderr.splitlines() if "error" in line or "fatal" in line
                )
                rows.append(("ptxas_static_smem", f"{sm} {n} B", "ok" if p.returncode == 0 else err))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--compile-only", action="store_true", help="build the kernel and stop")
    ap.add_argument(
        "--ptxas-archs", default="sm_90,sm_110", help="architectures for the ptxas check"
    )
    args = ap.parse_args()
    archs = [a.strip() for a in args.ptxas_archs.split(",") if a.strip()]
    if args.compile_only:
        print(f"compiled {len(compile_cubin('90'))} bytes of sm_90 cubin")
        for row in ptxas_rows(archs):
            print("\t".join(row))
        return 0

    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    name = ok(cu.cuDeviceGetName(64, dev))
    name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
    A = cu.CUdevice_attribute
    major = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    rows = [
        ("device", "-", f"{name} (cc {major}.{minor})"),
        ("driver_version", "-", str(ok(cu.cuDriverGetVersion()))),
    ]
    module = ok(cu.cuModuleLoadData(compile_cubin(f"{major}{minor}")))
    func = ok(cu.cuModuleGetFunction(module, b"mark"))
    regs = ok(cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, func))
    rows.append(("num_regs", "mark", str(regs)))
    rows.append((
        "max_active_blocks_per_sm",
        "256 threads",
        str(ok(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, 256, 0))),
    ))

    for np_allowed in (0, 1):
        set_non_portable(func, np_allowed)
        res = cu.cuOccupancyMaxPotentialClusterSize(func, config((128, 1, 1), 256, None))
        answer = str(res[1]) if int(res[0]) == 0 else name_of(res[0])
        rows.append(("max_potential_cluster_size", f"non_portable={np_allowed}", answer))

    set_non_portable(func, 1)
    for size in (3, 16, 17):
        res = cu.cuOccupancyMaxActiveClusters(func, config((size * 64, 1, 1), 256, (size, 1, 1)))
        answer = str(res[1]) if int(res[0]) == 0 else name_of(res[0])
        rows.append(("max_active_clusters", f"cluster {size}, non_portable=1", answer))

    launches = [
        ((8, 1, 1), (64, 1, 1), 0),
        ((9, 1, 1), (72, 1, 1), 0),
        ((9, 1, 1), (72, 1, 1), 1),
        ((4, 4, 1), (8, 8, 1), 0),
        ((4, 4, 1), (8, 8, 1), 1),
        ((16, 1, 1), (64, 1, 1), 1),
        ((17, 1, 1), (68, 1, 1), 1),
        ((3, 1, 1), (999, 1, 1), 0),
        ((3, 1, 1), (1000, 1, 1), 0),
        ((2, 2, 1), (4, 4, 1), 0),
        ((2, 2, 1), (4, 3, 1), 0),
        ((1, 1, 2), (4, 4, 3), 0),
    ]
    out = ok(cu.cuMemAlloc(4 * 1024 * 1024))
    for cluster, grid, np_allowed in launches:
        set_non_portable(func, np_allowed)
        param = np.array([int(out)], dtype=np.uint64)
        params = np.array([param.ctypes.data], dtype=np.uint64)
        launch = cu.cuLaunchKernelEx(config(grid, 256, cluster), func, params.ctypes.data, 0)
        status = launch[0] if isinstance(launch, tuple) else launch
        sync = cu.cuCtxSynchronize()
        sync = sync[0] if isinstance(sync, tuple) else sync
        rows.append((
            "launch",
            f"cluster {cluster} grid {grid} non_portable={np_allowed}",
            f"{name_of(status)} / sync {name_of(sync)}",
        ))
    ok(cu.cuMemFree(out))
    rows.extend(ptxas_rows(archs))
    print("what\tinput\tanswer")
    for row in rows:
        print("\t".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
