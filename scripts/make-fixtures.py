#!/usr/bin/env python3
"""Regenerate the resource-reader fixtures in occupancy-core/tests/fixtures/.

Compiles tests/fixtures/probe.cu with NVRTC (no GPU or driver needed) for several toolkits and
architectures, and records, next to every cubin, what NVIDIA's own tools say about it:

  <toolkit>/probe.<arch>.cubin   the cubin NVRTC returned (nvrtcGetCUBIN)
  <toolkit>/probe.<arch>.log     NVRTC's program log with -Xptxas=-v (ptxas resource lines)
  <toolkit>/probe.<arch>.res     cuobjdump --dump-resource-usage of the cubin
  <toolkit>/probe.<arch>.ptx     the PTX (one per toolkit: for .minnctapersm / .maxntid)
  fatbin/*.fatbin (+ .res)       nvFatbin containers: plain, LZ4 (-compress-all), zstd
  ptxas/*.log                    standalone ptxas -v logs (11.8, 12.9) of one PTX file

Exact packages (install each set into its own --target folder; pass the folder with --whl):
  cu11:   nvidia-cuda-nvrtc-cu11==11.8.89 nvidia-cuda-nvcc-cu11==11.8.89
  cu12:   nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86
  cu13:   nvidia-cuda-nvrtc==13.5.37 nvidia-cuda-cuobjdump==13.4.92
  fatbin: nvidia-nvfatbin-cu12==12.9.82

  for s in cu11 cu12 cu13 fatbin; do pip install --target .whl/$s <packages above>; done
  python3 scripts/make-fixtures.py --whl .whl
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "occupancy-core", "tests", "fixtures")

TOOLKITS = {
    # folder name: (library below --whl, architectures, PTX kept for)
    "nvrtc-11.8": ("cu11/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2",
                   ["sm_75", "sm_86", "sm_90"], "sm_90"),
    "nvrtc-12.9": ("cu12/nvidia/cuda_nvrtc/lib/libnvrtc.so.12",
                   ["sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120"], "sm_90"),
    "nvrtc-13.5": ("cu13/nvidia/cu13/lib/libnvrtc.so.13",
                   ["sm_75", "sm_86", "sm_90a", "sm_100", "sm_100f", "sm_120"], "sm_90a"),
}


def nvrtc_compile(lib, src, arch):
    """Returns (cubin bytes, ptx text, log text) or raises with NVRTC's log."""
    prog = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"probe.cu", 0, None, None))
    opts = [f"--gpu-architecture={arch}".encode(), b"-Xptxas=-v", b"--std=c++17"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    check(lib, lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)))
    buf = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetProgramLog(prog, buf))
    log = buf.value.decode()
    if rc != 0:
        raise RuntimeError(f"{arch}: compile failed\n{log}")
    check(lib, lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)))
    cubin = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetCUBIN(prog, cubin))
    check(lib, lib.nvrtcGetPTXSize(prog, ctypes.byref(size)))
    ptx = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetPTX(prog, ptx))
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return cubin.raw, ptx.value.decode(), log


def check(lib, rc):
    if rc != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise RuntimeError(lib.nvrtcGetErrorString(rc).decode())


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def resusage(cuobjdump, path):
    return subprocess.run([cuobjdump, "--dump-resource-usage", path], check=True,
                          capture_output=True, text=True).stdout


def fatbins(whl, cuobjdump):
    lib = ctypes.CDLL(os.path.join(whl, "fatbin/nvidia/nvfatbin/lib/libnvfatbin.so.12"))
    d = os.path.join(FIX, "nvrtc-12.9")
    members = [("sm_80", "cubin"), ("sm_90a", "cubin"), ("sm_90", "ptx")]
    for name, opts in [("plain", [b"-compress=false"]), ("lz4", [b"-compress-all"]),
                       ("zstd", [b"-compress-all", b"-compress-mode=size"])]:
        h = ctypes.c_void_p()
        arr = (ctypes.c_char_p * len(opts))(*opts)
        assert lib.nvFatbinCreate(ctypes.byref(h), arr, len(opts)) == 0, name
        for arch, kind in members:
            sm = arch[3:].encode()
            if kind == "cubin":
                data = open(os.path.join(d, f"probe.{arch}.cubin"), "rb").read()
                rc = lib.nvFatbinAddCubin(h, data, len(data), sm, b"probe")
            else:
                data = open(os.path.join(d, f"probe.{arch}.ptx"), "rb").read() + b"\0"
                rc = lib.nvFatbinAddPTX(h, data, len(data), sm, b"probe", None)
            assert rc == 0, (name, arch, rc)
        size = ctypes.c_size_t()
        assert lib.nvFatbinSize(h, ctypes.byref(size)) == 0
        out = ctypes.create_string_buffer(size.value)
        assert lib.nvFatbinGet(h, out) == 0
        lib.nvFatbinDestroy(ctypes.byref(h))
        path = os.path.join(FIX, "fatbin", f"probe.{name}.fatbin")
        write(path, out.raw)
        write(path[: -len(".fatbin")] + ".res", resusage(cuobjdump, path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--whl", default=os.path.join(ROOT, ".whl"))
    args = ap.parse_args()
    whl = os.path.abspath(args.whl)
    cuobjdump = os.path.join(whl, "cu13/nvidia/cu13/bin/cuobjdump")
    src = open(os.path.join(FIX, "probe.cu")).read()
    for folder, (libpath, archs, keep_ptx) in TOOLKITS.items():
        lib = ctypes.CDLL(os.path.join(whl, libpath))
        out = os.path.join(FIX, folder)
        shutil.rmtree(out, ignore_errors=True)
        for arch in archs:
            cubin, ptx, log = nvrtc_compile(lib, src, arch)
            base = os.path.join(out, f"probe.{arch}")
            write(base + ".cubin", cubin)
            write(base + ".log", log)
            write(base + ".res", resusage(cuobjdump, base + ".cubin"))
            if arch == keep_ptx:
                write(base + ".ptx", ptx)
            print(f"{folder} {arch}: {len(cubin)} bytes", file=sys.stderr)
    fatbins(whl, cuobjdump)
    # Standalone ptxas -v logs (their line prefixes differ from NVRTC's program log).
    ptx = os.path.join(FIX, "nvrtc-12.9", "probe.sm_90.ptx")
    for tag, rel, arch in [("11.8", "cu11/nvidia/cuda_nvcc/bin/ptxas", "sm_90"),
                           ("12.9", "cu12/nvidia/cuda_nvcc/bin/ptxas", "sm_90")]:
        src_ptx = ptx if tag == "12.9" else os.path.join(FIX, "nvrtc-11.8", "probe.sm_90.ptx")
        r = subprocess.run([os.path.join(whl, rel), "-v", f"-arch={arch}", src_ptx, "-o", "/dev/null"],
                           check=True, capture_output=True, text=True)
        write(os.path.join(FIX, "ptxas", f"ptxas-{tag}.{arch}.log"), r.stdout + r.stderr)


if __name__ == "__main__":
    main()
