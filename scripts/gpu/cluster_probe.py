#!/usr/bin/env python3
"""Record what the thread-block-cluster model needs from a real GPU (cc 9.0+).

Run on the GPU machine (needs `cuda.bindings` with NVRTC and a driver; numpy):

    python3 scripts/gpu/cluster_probe.py --out "$OUT"      # everything, ~1 minute
    python3 scripts/gpu/cluster_probe.py --quick           # fewer cluster shapes, stdout
    python3 scripts/gpu/cluster_probe.py --compile-only    # no GPU: checks the kernels build

It writes four TSV files into --out (and prints a summary to stdout):

- `device.tsv`: name, compute capability, SM count, driver version and the attributes the
  occupancy engine uses.
- `sweep.tsv`: `cuOccupancyMaxActiveClusters` for cluster sizes 1..16 (linear, and the 2-D
  and 3-D shapes of 4, 6, 8, 12, 16 blocks) x plain occupancy 1..32 blocks per SM (a
  32-thread kernel whose dynamic shared memory sets the occupancy) x the cluster
  scheduling policy attribute (unset, spread, load_balancing) x the non-portable
  attribute (1, and 0 above 8 blocks). Columns: cluster_x, cluster_y, cluster_z,
  cluster_size, policy, non_portable, dynamic_smem, blocks_per_sm (plain,
  `cuOccupancyMaxActiveBlocksPerMultiprocessor`), max_active_clusters (or the CUresult
  name). The model predicts `max_active_clusters` from (cluster_size, min(blocks_per_sm, 8))
  and the virtual-GPC skyline; policy and shape should not matter.
- `placement.tsv`: real cluster launches of exactly max_active_clusters clusters (and one
  more), at 1 and 2 blocks per SM, for cluster sizes 2, 3, 4, 6, 8, 9, 12, 16. Every block
  records %smid, %nsmid, %clusterid.x, %cluster_ctarank and whether all blocks of the grid
  were resident at once (a global arrival counter with a 2 s timeout). Columns: size,
  blocks_per_sm, clusters_launched, repeat, block, cluster, rank, smid, nsmid,
  all_resident.
- `vgpcs.tsv`: SMs grouped by "ran blocks of one cluster together" (union-find over all
  placement launches): one row per group with its SM count and SM ids. On an H200 the
  model predicts groups of 8, 16 x 5 and 18 x 2 SMs plus 4 groups of 2 (singleton TPCs).

Checks printed at the end: whether max_active_clusters clusters were all co-resident
(they must be), whether one more cluster was not (it should not be), and the group sizes.
"""

import argparse
import os
import sys
from itertools import product

import numpy as np

try:
    from cuda.bindings import driver as cu
    from cuda.bindings import nvrtc
except ImportError:  # cuda-python 12.x before the cuda.bindings namespace
    from cuda import cuda as cu  # type: ignore
    from cuda import nvrtc  # type: ignore

SOURCE = r"""
extern "C" __global__ void occ_probe(unsigned *out) {
    extern __shared__ unsigned char smem[];
    if (out != nullptr && threadIdx.x == 0) { smem[0] = 1; out[blockIdx.x] = smem[0]; }
}

extern "C" __global__ void place_probe(unsigned *rec, unsigned *arrived, unsigned total,
                                       unsigned long long timeout_ns) {
    extern __shared__ unsigned char smem[];
    unsigned smid, nsmid, cid, crank;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(crank));
    if (threadIdx.x == 0) {
        smem[0] = 1;
        atomicAdd(arrived, 1u);
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        t = t0;
        while (*(volatile unsigned *)arrived < total && t - t0 < timeout_ns) {
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        }
        unsigned all = *(volatile unsigned *)arrived >= total ? 1u : 0u;
        unsigned *r = rec + 5 * blockIdx.x;
        r[0] = smid; r[1] = nsmid; r[2] = cid; r[3] = crank; r[4] = all + 2u * smem[0];
    }
}
"""

POLICIES = {
    "unset": None,
    "spread": "CU_CLUSTER_SCHEDULING_POLICY_SPREAD",
    "load_balancing": "CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING",
}


class CudaError(Exception):
    pass


def name_of(err):
    try:
        e, s = cu.cuGetErrorName(err)
        return s.decode() if isinstance(s, bytes) else str(err)
    except Exception:  # noqa: BLE001 - any failure: fall back to the enum's repr
        return str(err)


def ok(result):
    """Unwraps a cuda.bindings return tuple, raising on a non-success status."""
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
    prog = ok(nvrtc.nvrtcCreateProgram(SOURCE.encode(), b"cluster_probe.cu", 0, [], []))
    opts = [f"--gpu-architecture=sm_{arch}".encode(), b"-std=c++17"]
    status = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0]
    size = ok(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    ok(nvrtc.nvrtcGetProgramLog(prog, log))
    if int(status) != 0:
        raise CudaError(f"NVRTC compile failed for sm_{arch}:\n{log.decode(errors='replace')}")
    size = ok(nvrtc.nvrtcGetCUBINSize(prog))
    cubin = b" " * size
    ok(nvrtc.nvrtcGetCUBIN(prog, cubin))
    return cubin


def launch_config(grid_x, block_x, dyn_smem, cluster, policy):
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid_x, cluster[1], cluster[2]
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block_x, 1, 1
    cfg.sharedMemBytes = dyn_smem
    cfg.hStream = cu.CUstream(0)
    attrs = []
    a = cu.CUlaunchAttribute()
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = cluster
    attrs.append(a)
    if POLICIES[policy] is not None:
        p = cu.CUlaunchAttribute()
        p.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
        p.value.clusterSchedulingPolicyPreference = getattr(
            cu.CUclusterSchedulingPolicy, POLICIES[policy]
        )
        attrs.append(p)
    cfg.attrs = attrs
    cfg.numAttrs = len(attrs)
    return cfg


def set_attr(func, attr, value):
    ok(cu.cuFuncSetAttribute(func, getattr(cu.CUfunction_attribute, attr), value))


def shapes(quick):
    """Cluster shapes: every linear size 1..16, plus 2-D / 3-D factorizations."""
    out = [(c, 1, 1) for c in range(1, 17)]
    if not quick:
        for size in (4, 6, 8, 12, 16):
            for x, y, z in product(range(1, 17), repeat=3):
                if x * y * z == size and (x, y, z) != (size, 1, 1):
                    out.append((x, y, z))
    return out


def dyn_smem_for(blocks, per_sm, reserved, static, optin):
    """Largest dynamic shared memory (multiple of 128) that still fits `blocks` per SM."""
    d = (per_sm // blocks - reserved - static) // 128 * 128
    return max(0, min(d, optin - static))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--out", default=None, help="folder for the TSV files (default: none)")
    ap.add_argument("--quick", action="store_true", help="linear cluster shapes only")
    ap.add_argument("--compile-only", action="store_true", help="build the kernels and stop")
    ap.add_argument("--arch", default=None, help="sm number for --compile-only (e.g. 90)")
    ap.add_argument("--repeats", type=int, default=3, help="placement launches per case")
    args = ap.parse_args()

    if args.compile_only:
        cubin = compile_cubin(args.arch or "90")
        print(f"compiled {len(cubin)} bytes of sm_{args.arch or '90'} cubin")
        return 0

    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))
    A = cu.CUdevice_attribute

    def attr(n):
        return ok(cu.cuDeviceGetAttribute(getattr(A, n), dev))

    name = ok(cu.cuDeviceGetName(64, dev))
    name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
    major = attr("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
    minor = attr("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
    sms = attr("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
    per_sm = attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR")
    optin = attr("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
    reserved = attr("CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK")
    driver_version = ok(cu.cuDriverGetVersion())
    device_rows = [
        ("name", name),
        ("compute_capability", f"{major}.{minor}"),
        ("multiprocessor_count", sms),
        ("driver_version", driver_version),
        ("max_shared_memory_per_multiprocessor", per_sm),
        ("max_shared_memory_per_block_optin", optin),
        ("reserved_shared_memory_per_block", reserved),
        ("max_blocks_per_multiprocessor", attr("CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR")),
        ("cluster_launch", attr("CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH")),
    ]
    if major < 9:
        print(f"{name} is cc {major}.{minor}: no thread-block clusters", file=sys.stderr)
        return 1

    cubin = compile_cubin(f"{major}{minor}")
    module = ok(cu.cuModuleLoadData(cubin))
    occ = ok(cu.cuModuleGetFunction(module, b"occ_probe"))
    place = ok(cu.cuModuleGetFunction(module, b"place_probe"))
    static = {}
    for fname, f in (("occ_probe", occ), ("place_probe", place)):
        static[fname] = ok(
            cu.cuFuncGetAttribute(cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)
        )
        set_attr(f, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", optin - static[fname])

    # 1. The occupancy sweep.
    sweep = []
    for blocks in range(1, 33):
        dyn = dyn_smem_for(blocks, per_sm, reserved, static["occ_probe"], optin)
        plain = ok(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(occ, 32, dyn))
        for shape in shapes(args.quick):
            size = shape[0] * shape[1] * shape[2]
            for policy in POLICIES:
                for non_portable in ([1, 0] if size > 8 else [1]):
                    set_attr(occ, "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", non_portable)
                    cfg = launch_config(64 * shape[0], 32, dyn, shape, policy)
                    res = cu.cuOccupancyMaxActiveClusters(occ, cfg)
                    answer = res[1] if int(res[0]) == 0 else name_of(res[0])
                    sweep.append((*shape, size, policy, non_portable, dyn, plain, answer))
    set_attr(occ, "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", 1)

    # 2. Real launches: placement and co-residency.
    set_attr(place, "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", 1)
    placement, checks = [], []
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for blocks_per_sm, size in product((1, 2), (16, 12, 9, 8, 6, 4, 3, 2)):
        dyn = dyn_smem_for(blocks_per_sm, per_sm, reserved, static["place_probe"], optin)
        shape = (size, 1, 1)
        cfg = launch_config(size, 128, dyn, shape, "unset")
        max_clusters = ok(cu.cuOccupancyMaxActiveClusters(place, cfg))
        for extra, rep in [(0, r) for r in range(args.repeats)] + [(1, 0)]:
            n = max_clusters + extra
            total = n * size
            rec = ok(cu.cuMemAlloc(total * 5 * 4))
            arrived = ok(cu.cuMemAlloc(4))
            ok(cu.cuMemsetD32(rec, 0xFFFFFFFF, total * 5))
            ok(cu.cuMemsetD32(arrived, 0, 1))
            cfg = launch_config(total, 128, dyn, shape, "unset")
            kargs = [
                np.array([int(rec)], dtype=np.uint64),
                np.array([int(arrived)], dtype=np.uint64),
                np.array([total], dtype=np.uint32),
                np.array([2_000_000_000], dtype=np.uint64),
            ]
            params = np.array([a.ctypes.data for a in kargs], dtype=np.uint64)
            ok(cu.cuLaunchKernelEx(cfg, place, params.ctypes.data, 0))
            ok(cu.cuCtxSynchronize())
            host = np.empty(total * 5, dtype=np.uint32)
            ok(cu.cuMemcpyDtoH(host.ctypes.data, rec, host.nbytes))
            ok(cu.cuMemFree(rec))
            ok(cu.cuMemFree(arrived))
            host = host.reshape(total, 5)
            all_resident = bool(np.all(host[:, 4] & 1))
            checks.append((size, blocks_per_sm, max_clusters, n, rep, all_resident))
            by_cluster = {}
            for b in range(total):
                smid, nsmid, cid, rank, flags = (int(v) for v in host[b])
                placement.append((size, blocks_per_sm, n, rep, b, cid, rank, smid, nsmid, flags & 1))
                by_cluster.setdefault(cid, []).append(smid)
            if extra == 0:
                for members in by_cluster.values():
                    for s in members[1:]:
                        parent[find(s)] = find(members[0])

    groups = {}
    for s in list(parent):
        groups.setdefault(find(s), []).append(s)
    vgpcs = sorted((sorted(g) for g in groups.values()), key=lambda g: (len(g), g))

    # Output.
    tables = {
        "device.tsv": (("key", "value"), device_rows),
        "sweep.tsv": (
            ("cluster_x", "cluster_y", "cluster_z", "cluster_size", "policy", "non_portable",
             "dynamic_smem", "blocks_per_sm", "max_active_clusters"),
            sweep,
        ),
        "placement.tsv": (
            ("size", "blocks_per_sm", "clusters_launched", "repeat", "block", "cluster",
             "rank", "smid", "nsmid", "all_resident"),
            placement,
        ),
        "vgpcs.tsv": (
            ("group", "sm_count", "smids"),
            [(i, len(g), ",".join(map(str, g))) for i, g in enumerate(vgpcs)],
        ),
    }
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for fname, (header, rows) in tables.items():
            with open(os.path.join(args.out, fname), "w") as f:
                f.write("\t".join(header) + "\n")
                for row in rows:
                    f.write("\t".join(str(v) for v in row) + "\n")

    print(f"# {name}, cc {major}.{minor}, {sms} SMs, driver {driver_version}")
    print("# linear clusters, policy unset, non-portable allowed: max_active_clusters")
    linear = {}
    for x, y, z, size, policy, np_, dyn, plain, answer in sweep:
        if (y, z, policy, np_) == (1, 1, "unset", 1):
            linear.setdefault((plain, size), answer)
    print("blocks_per_sm\t" + "\t".join(f"c{c}" for c in range(1, 17)))
    for plain in sorted({p for p, _ in linear}):
        print(f"{plain}\t" + "\t".join(str(linear.get((plain, c), "-")) for c in range(1, 17)))
    differ = [r for r in sweep if r[4] != "unset" or r[1:3] != (1, 1)]
    base = {(r[3], r[7], r[5]): r[8] for r in sweep if r[4] == "unset" and r[1:3] == (1, 1)}
    odd = [r for r in differ if base.get((r[3], r[7], r[5])) != r[8]]
    print(f"# shapes / policies that differ from the linear, unset answer: {len(odd)}")
    for r in odd[:20]:
        print("#   " + "\t".join(map(str, r)))
    print("# co-residency: size, blocks_per_sm, max_active_clusters, launched, repeat, all_resident")
    for c in checks:
        print("#   " + "\t".join(map(str, c)))
    print(f"# SM groups that shared a cluster ({len(vgpcs)}): sizes "
          + " ".join(str(len(g)) for g in vgpcs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
