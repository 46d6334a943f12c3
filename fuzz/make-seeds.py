#!/usr/bin/env python3
"""Writes the small binary seeds in fuzz/seeds/ (cubins, fatbins, their PTX and ptxas logs).

The fixtures in occupancy-core/tests/fixtures/ are real but large (30-100 KB: every mutation
of a big input is slow); these seeds are the same formats from a two-kernel source of a few
lines, so each is a few KB. NVRTC 12.9 (nvidia-cuda-nvrtc-cu12) and nvFatbin 12.9
(nvidia-nvfatbin-cu12), no GPU needed:

  pip install --target .whl/cu12 nvidia-cuda-nvrtc-cu12==12.9.86
  pip install --target .whl/fatbin nvidia-nvfatbin-cu12==12.9.82
  python3 fuzz/make-seeds.py --nvrtc .whl/cu12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 \
      --nvfatbin .whl/fatbin/nvidia/nvfatbin/lib/libnvfatbin.so.12
"""
import argparse
import ctypes
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")

# Launch bounds with a minimum blocks per SM (.maxntid, .minnctapersm), static shared memory,
# a barrier, a stack frame (indexed local array), a C++ (mangled) and an extern "C" name.
SOURCE = r"""
template <int N>
__global__ void __launch_bounds__(128, 4) seed_tile(float *out, const float *in, int k) {
    __shared__ float tile[N];
    float local[16];
    for (int j = 0; j < 16; ++j) local[j] = in[threadIdx.x + j];
    tile[threadIdx.x % N] = local[k & 15];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % N];
}
template __global__ void seed_tile<64>(float *, const float *, int);
extern "C" __global__ void seed_plain(float *out) { out[threadIdx.x] = 1.0f; }
"""
CLUSTER = r"""
extern "C" __global__ void __cluster_dims__(2, 1, 1) seed_cluster(float *out) {
    out[threadIdx.x] = 2.0f;
}
"""


def check(lib, rc):
    if rc != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise RuntimeError(lib.nvrtcGetErrorString(rc).decode())


def get(lib, prog, size_fn, get_fn):
    size = ctypes.c_size_t()
    check(lib, getattr(lib, size_fn)(prog, ctypes.byref(size)))
    buf = ctypes.create_string_buffer(size.value)
    check(lib, getattr(lib, get_fn)(prog, buf))
    return buf.raw


def compile(lib, src, arch):
    prog = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"seed.cu", 0, None, None))
    opts = [f"--gpu-architecture={arch}".encode(), b"-Xptxas=-v", b"--std=c++17"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    log = get(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog").rstrip(b"\0")
    if rc != 0:
        raise RuntimeError(log.decode())
    cubin = get(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
    ptx = get(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\0")
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return cubin, ptx, log


def write(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nvrtc", required=True)
    ap.add_argument("--nvfatbin", required=True)
    args = ap.parse_args()
    nvrtc = ctypes.CDLL(os.path.abspath(args.nvrtc))
    out = {}
    # ELF ABI v7 (sm_80), v7 with `a` and a cluster (sm_90a), v8 (sm_100).
    for arch in ["sm_80", "sm_90a", "sm_100"]:
        src = SOURCE + (CLUSTER if arch != "sm_80" else "")
        out[arch] = compile(nvrtc, src, arch)
        cubin, ptx, log = out[arch]
        write("cubin", f"seed.{arch}.cubin", cubin)
        write("ptx", f"seed.{arch}.ptx", ptx)
        write("ptxas_log", f"seed.{arch}.log", log)
    fb = ctypes.CDLL(os.path.abspath(args.nvfatbin))
    for name, opts in [("plain", [b"-compress=false"]), ("lz4", [b"-compress-all"]),
                       ("zstd", [b"-compress-all", b"-compress-mode=size"])]:
        h = ctypes.c_void_p()
        assert fb.nvFatbinCreate(ctypes.byref(h), (ctypes.c_char_p * len(opts))(*opts), len(opts)) == 0
        cubin = out["sm_80"][0]
        assert fb.nvFatbinAddCubin(h, cubin, len(cubin), b"80", b"seed") == 0
        ptx = out["sm_90a"][1] + b"\0"
        assert fb.nvFatbinAddPTX(h, ptx, len(ptx), b"90a", b"seed", None) == 0
        size = ctypes.c_size_t()
        assert fb.nvFatbinSize(h, ctypes.byref(size)) == 0
        buf = ctypes.create_string_buffer(size.value)
        assert fb.nvFatbinGet(h, buf) == 0
        fb.nvFatbinDestroy(ctypes.byref(h))
        write("fatbin", f"seed.{name}.fatbin", buf.raw)


if __name__ == "__main__":
    main()
