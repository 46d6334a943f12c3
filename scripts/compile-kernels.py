#!/usr/bin/env python3
"""Compile every kernels/*.cu with NVRTC for several architectures and print what ptxas
reports per kernel: registers per thread, static shared memory, stack frame, spills.

NVRTC is loaded with ctypes from libnvrtc (no CUDA toolkit, no GPU needed). Where it looks,
in order: --nvrtc PATH, $NVRTC_LIB, the pip package nvidia-cuda-nvrtc-cu12
(nvidia/cuda_nvrtc/lib/libnvrtc.so.12), then the system loader ("libnvrtc.so").

    pip install --user nvidia-cuda-nvrtc-cu12
    python3 scripts/compile-kernels.py                  # table, default architectures
    python3 scripts/compile-kernels.py --arch sm_90 --json
    python3 scripts/compile-kernels.py --out /tmp/cubins  # also write <stem>.<sm>.cubin

Exit status 1 if any file fails to compile (the NVRTC log is printed).
"""

import argparse
import ctypes
import ctypes.util
import glob
import json
import os
import re
import sys

DEFAULT_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]
NVRTC_SUCCESS = 0


def find_nvrtc(explicit):
    candidates = []
    if explicit:
        candidates.append(explicit)
    if os.environ.get("NVRTC_LIB"):
        candidates.append(os.environ["NVRTC_LIB"])
    try:
        import nvidia.cuda_nvrtc  # the pip package nvidia-cuda-nvrtc-cu12

        for root in nvidia.cuda_nvrtc.__path__:
            candidates += sorted(glob.glob(os.path.join(root, "lib", "libnvrtc.so.*")))
    except ImportError:
        pass
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    for path in candidates:
        # Skip libnvrtc.alt (a variant with a different ABI) and libnvrtc-builtins.
        if "builtins" in path or ".alt." in path:
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError:
            continue
    sys.exit("libnvrtc not found: pip install --user nvidia-cuda-nvrtc-cu12, or set NVRTC_LIB")


class Nvrtc:
    def __init__(self, lib):
        self.lib = lib
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
        self.version = (major.value, minor.value)

    def check(self, status):
        if status != NVRTC_SUCCESS:
            raise RuntimeError(self.lib.nvrtcGetErrorString(status).decode())

    def compile(self, source, name, options):
        """Returns (ok, log, cubin bytes or None)."""
        prog = ctypes.c_void_p()
        self.check(
            self.lib.nvrtcCreateProgram(
                ctypes.byref(prog), source.encode(), name.encode(), 0, None, None
            )
        )
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            status = self.lib.nvrtcCompileProgram(prog, len(options), opts)
            size = ctypes.c_size_t()
            self.check(self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)))
            buf = ctypes.create_string_buffer(size.value)
            self.check(self.lib.nvrtcGetProgramLog(prog, buf))
            log = buf.value.decode(errors="replace")
            if status != NVRTC_SUCCESS:
                return False, log, None
            self.check(self.lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)))
            cubin = ctypes.create_string_buffer(size.value)
            self.check(self.lib.nvrtcGetCUBIN(prog, cubin))
            return True, log, cubin.raw
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


# ptxas -v lines, e.g.
#   ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
#   ptxas info    : Function properties for saxpy
#       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
#   ptxas info    : Used 10 registers, used 0 barriers, 1024 bytes smem, 400 bytes cmem[0]
ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
USED = re.compile(r"Used (\d+) registers")
BARRIERS = re.compile(r"used (\d+) barriers")
SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(log):
    """{kernel: {regs, smem_bytes, barriers, stack_bytes, spill_stores, spill_loads}}"""
    kernels = {}
    current = None
    for line in log.splitlines():
        m = ENTRY.search(line)
        if m:
            current = kernels.setdefault(
                m.group(1),
                dict(regs=0, smem_bytes=0, barriers=0, stack_bytes=0, spill_stores=0, spill_loads=0),
            )
            continue
        if current is None:
            continue
        m = FRAME.search(line)
        if m:
            current["stack_bytes"], current["spill_stores"], current["spill_loads"] = map(
                int, m.groups()
            )
        m = USED.search(line)
        if m:
            current["regs"] = int(m.group(1))
            b = BARRIERS.search(line)
            current["barriers"] = int(b.group(1)) if b else 0
            s = SMEM.search(line)
            current["smem_bytes"] = int(s.group(1)) if s else 0
    return kernels


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=os.path.join(here, "..", "kernels"), help="folder of *.cu")
    ap.add_argument("--arch", action="append", help="sm_XX (repeatable); default: %s" % " ".join(DEFAULT_ARCHS))
    ap.add_argument("--nvrtc", help="path to libnvrtc.so")
    ap.add_argument("--out", help="write <stem>.<sm>.cubin files here")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    archs = args.arch or DEFAULT_ARCHS

    lib, path = find_nvrtc(args.nvrtc)
    nvrtc = Nvrtc(lib)
    sources = sorted(glob.glob(os.path.join(args.kernels, "*.cu")))
    if not sources:
        sys.exit("no .cu files in %s" % args.kernels)
    if args.out:
        os.makedirs(args.out, exist_ok=True)

    results = []  # (stem, kernel, arch, info)
    failed = False
    for src_path in sources:
        stem = os.path.splitext(os.path.basename(src_path))[0]
        with open(src_path) as f:
            source = f.read()
        for arch in archs:
            opts = ["--gpu-architecture=" + arch, "-Xptxas=-v", "--std=c++17"]
            ok, log, cubin = nvrtc.compile(source, stem + ".cu", opts)
            if not ok:
                failed = True
                print("error: %s for %s:\n%s" % (stem, arch, log), file=sys.stderr)
                continue
            if "warning" in log:
                print("warning: %s for %s:\n%s" % (stem, arch, log), file=sys.stderr)
            if args.out:
                with open(os.path.join(args.out, "%s.%s.cubin" % (stem, arch)), "wb") as f:
                    f.write(cubin)
            for kernel, info in sorted(parse_ptxas(log).items()):
                results.append((stem, kernel, arch, info))

    if args.json:
        out = {
            "nvrtc": "%d.%d" % nvrtc.version,
            "kernels": [dict(file=s + ".cu", kernel=k, arch=a, **i) for s, k, a, i in results],
        }
        print(json.dumps(out, indent=1))
    else:
        print("NVRTC %d.%d (%s), -Xptxas=-v" % (nvrtc.version + (path,)))
        print("regs = registers per thread, smem = static shared memory bytes, "
              "stack = stack frame bytes, spill = spill stores/loads bytes")
        header = "%-22s %-7s %5s %6s %5s %5s %9s" % ("kernel", "arch", "regs", "smem", "bar", "stack", "spill")
        print(header)
        print("-" * len(header))
        order = {a: n for n, a in enumerate(archs)}
        results.sort(key=lambda r: (r[0], r[1], order[r[2]]))
        last = None
        for stem, kernel, arch, i in results:
            if last is not None and kernel != last:
                print()
            last = kernel
            print("%-22s %-7s %5d %6d %5d %5d %4d/%-4d" % (
                kernel, arch, i["regs"], i["smem_bytes"], i["barriers"], i["stack_bytes"],
                i["spill_stores"], i["spill_loads"]))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
