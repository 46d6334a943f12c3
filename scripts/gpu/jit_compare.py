#!/usr/bin/env python3
"""The CUDA driver's PTX JIT against PyPI's ptxas: registers, static shared memory and local
memory of the same PTX, on a real GPU.

A project that ships PTX has its kernels assembled at load time by the driver's own
assembler, whose release is the driver's (CUDA 13.0 for driver 580), not that of the ptxas
`cargo occupancy inspect --arch` runs (`nvidia-cuda-nvcc-cu12`, 12.9). This measures the
difference. Two steps, because the GPU machine has no cargo and no NVRTC wheel:

    # here: PTX of kernels/*.cu and the probe kernels from NVRTC 12.9 (compute_75, 80, 90),
    # and what PyPI's ptxas gives each for the GPU's architecture
    python3 scripts/gpu/jit_compare.py prepare --bin target/release/cargo-occupancy --arch sm_90 --out .device/jit
    # on the GPU machine: cuModuleLoadDataEx on each PTX (the driver JIT-compiles it), the
    # function attributes, and the machine's own ptxas on the same PTX
    python3 scripts/gpu/jit_compare.py check --dir .device/jit --out "$OUT"

`check` prints one row per (PTX module, kernel): PyPI ptxas / driver JIT / local ptxas for
`CU_FUNC_ATTRIBUTE_NUM_REGS`, `SHARED_SIZE_BYTES` and `LOCAL_SIZE_BYTES`, the agreement
counts, and writes `jit.tsv` (with each PTX's SHA-256, so that a test can tell the same PTX
again: `tests/data/h200/jit_vs_ptxas.tsv` is that file) and the JIT's info logs
(`jit-logs.txt`) to --out.
"""

import argparse
import ctypes
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SOURCES = sorted(glob.glob("kernels/*.cu")) + ["occupancy-core/tests/fixtures/probe.cu"]
VIRTUAL = ["compute_75", "compute_80", "compute_90"]


def nvrtc_library():
    import site

    roots = site.getsitepackages() + [site.getusersitepackages()]
    for root in roots:
        path = os.path.join(root, "nvidia/cuda_nvrtc/lib/libnvrtc.so.12")
        if os.path.isfile(path):
            return path
    sys.exit("libnvrtc.so.12 not found: pip install nvidia-cuda-nvrtc-cu12==12.9.86")


def compile_ptx(lib, source, name, arch, include):
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None):
        sys.exit(f"{name}: nvrtcCreateProgram failed")
    opts = [f"--gpu-architecture={arch}", "--std=c++17", f"-I{include}"]
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    status = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    if status:
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        sys.exit(f"{name} for {arch}:\n{log.value.decode(errors='replace')}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def prepare(args):
    os.makedirs(args.out, exist_ok=True)
    lib = ctypes.CDLL(nvrtc_library())
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    files = []
    for src in SOURCES:
        stem = os.path.splitext(os.path.basename(src))[0]
        with open(src) as f:
            text = f.read()
        for arch in VIRTUAL:
            path = os.path.join(args.out, f"{stem}.{arch}.ptx")
            with open(path, "w") as f:
                f.write(compile_ptx(lib, text, os.path.basename(src), arch, os.path.dirname(src)))
            files.append(path)
    out = subprocess.run([args.bin, "inspect", "--json", "--arch", args.arch] + files,
                         check=True, capture_output=True, text=True)
    rows = json.loads(out.stdout)
    for r in rows:
        r["file"] = os.path.basename(r["file"])
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump({"nvrtc": f"{major.value}.{minor.value}", "arch": args.arch, "kernels": rows}, f)
    print(f"prepared {len(files)} PTX modules, {len(rows)} kernels in {args.out}")


# ptxas -v, per entry: the properties line belongs to the entry only when its "Function
# properties for X" names that entry (a non-inlined callee has its own block).
ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPS = re.compile(r"Function properties for (\S+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")


def parse_ptxas(log):
    out, current, props_for = {}, None, None
    for line in log.splitlines():
        m = ENTRY.search(line)
        if m:
            current = out.setdefault(m.group(1), {"regs": None, "smem": 0, "local": 0})
            props_for = None
            continue
        m = PROPS.search(line)
        if m:
            props_for = m.group(1)
            continue
        m = FRAME.search(line)
        if m:
            if current is not None and props_for is not None and out.get(props_for) is current:
                current["local"] = int(m.group(1))
            props_for = None
            continue
        m = USED.search(line)
        if m and current is not None:
            current["regs"] = int(m.group(1))
            s = SMEM.search(line)
            current["smem"] = int(s.group(1)) if s else 0
    return out


def local_ptxas(path, arch):
    exe = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.isfile(exe):
        return "none", None, "no ptxas on PATH or in /usr/local/cuda/bin"
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    release = re.search(r"release (\d+\.\d+)", version)
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([exe, f"-arch={arch}", "-v", "-o", os.path.join(tmp, "m.cubin"), path],
                             capture_output=True, text=True)
    if run.returncode:
        return release.group(1) if release else "?", None, run.stdout + run.stderr
    return release.group(1) if release else "?", parse_ptxas(run.stdout + run.stderr), ""


# cuda.h values.
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_PTX_VERSION = 5
CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_LOG_VERBOSE = 12


class Driver:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.ok(self.cu.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.ok(self.cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        self.ok(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.ok(self.cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        version = ctypes.c_int()
        self.cu.cuDriverGetVersion(ctypes.byref(version))
        self.version = f"{version.value // 1000}.{version.value % 1000 // 10}"
        name = ctypes.create_string_buffer(256)
        self.cu.cuDeviceGetName(name, 256, dev)
        self.name = name.value.decode()

    @staticmethod
    def ok(status, what):
        if status:
            raise RuntimeError(f"{what} failed: CUresult {status}")

    def load_ptx(self, ptx):
        """(module or None, JIT info log, error log)"""
        size = 1 << 20
        info, error = ctypes.create_string_buffer(size), ctypes.create_string_buffer(size)
        opts = (ctypes.c_int * 5)(CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE)
        vals = (ctypes.c_void_p * 5)(ctypes.addressof(info), size, ctypes.addressof(error), size, 1)
        module = ctypes.c_void_p()
        image = ctypes.create_string_buffer(ptx.encode())
        status = self.cu.cuModuleLoadDataEx(ctypes.byref(module), image, 5, opts, vals)
        if status:
            return None, info.value.decode(errors="replace"), f"CUresult {status}: {error.value.decode(errors='replace')}"
        return module, info.value.decode(errors="replace"), ""

    def attributes(self, module, name):
        func = ctypes.c_void_p()
        self.ok(self.cu.cuModuleGetFunction(ctypes.byref(func), module, name.encode()), f"cuModuleGetFunction {name}")

        def attr(a):
            v = ctypes.c_int()
            self.ok(self.cu.cuFuncGetAttribute(ctypes.byref(v), a, func), f"cuFuncGetAttribute {a}")
            return v.value

        return {"regs": attr(CU_FUNC_ATTRIBUTE_NUM_REGS), "smem": attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                "local": attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), "ptx": attr(CU_FUNC_ATTRIBUTE_PTX_VERSION),
                "binary": attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION)}


def check(args):
    with open(os.path.join(args.dir, "expected.json")) as f:
        expected = json.load(f)
    arch = expected["arch"]
    os.makedirs(args.out, exist_ok=True)
    try:
        driver = Driver()
        print(f"GPU {driver.name}, driver CUDA {driver.version}")
    except (OSError, RuntimeError) as e:
        driver = None
        print(f"no driver ({e}): local ptxas only")
    by_file = {}
    for k in expected["kernels"]:
        by_file.setdefault(k["file"], []).append(k)
    rows, logs, counts, local_release = [], [], {}, "?"

    def count(what, agrees):
        n, a = counts.get(what, (0, 0))
        counts[what] = (n + 1, a + int(agrees))

    for file in sorted(by_file):
        path = os.path.join(args.dir, file)
        with open(path) as f:
            ptx = f.read()
        module, info, error = driver.load_ptx(ptx) if driver else (None, "", "no driver")
        logs.append(f"== {file}\n{info}{error}\n")
        local_release, local, local_error = local_ptxas(path, arch)
        if local_error:
            logs.append(f"== {file}: local ptxas failed\n{local_error}\n")
        for k in by_file[file]:
            pypi = {"regs": k["registers_per_thread"], "smem": k["static_smem"], "local": k["local_bytes"]}
            jit = driver.attributes(module, k["kernel"]) if module else None
            loc = (local or {}).get(k["kernel"])
            name = k["demangled"] or k["kernel"]
            for key in ("regs", "smem", "local"):
                if jit:
                    count(f"JIT = PyPI ptxas {expected_toolkit(expected)}: {key}", jit[key] == pypi[key])
                if jit and loc:
                    count(f"JIT = local ptxas {local_release}: {key}", jit[key] == loc[key])
            rows.append([file, hashlib.sha256(ptx.encode()).hexdigest(), name] + [str(pypi[x]) for x in ("regs", "smem", "local")]
                        + [str(jit[x]) if jit else "-" for x in ("regs", "smem", "local", "ptx", "binary")]
                        + [str(loc[x]) if loc else "-" for x in ("regs", "smem", "local")])
    header = ["ptx", "ptx_sha256", "kernel", "pypi_regs", "pypi_smem", "pypi_local", "jit_regs", "jit_smem", "jit_local",
              "jit_ptx_version", "jit_binary_version", "local_regs", "local_smem", "local_local"]
    with open(os.path.join(args.out, "jit.tsv"), "w") as f:
        f.write("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    with open(os.path.join(args.out, "jit-logs.txt"), "w") as f:
        f.write("".join(logs))
    print(f"{'ptx':<28} {'kernel':<22} {'PyPI ptxas':>16} {'driver JIT':>16} {'local ptxas':>16}")
    for r in rows:
        r = r[:1] + r[2:]
        print(f"{r[0]:<28} {r[1][:22]:<22} {'/'.join(r[2:5]):>16} {'/'.join(r[5:8]):>16} {'/'.join(r[10:13]):>16}"
              + ("" if r[2:5] == r[5:8] else "   differs"))
    print("(regs / static smem bytes / local bytes)")
    for what, (n, a) in sorted(counts.items()):
        print(f"{what:<40} {n:>5} checked {a:>5} agree")
    return 0


def expected_toolkit(expected):
    tk = {k.get("toolkit") for k in expected["kernels"]}
    return "/".join(sorted(t for t in tk if t)) or "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--bin", required=True, help="the cargo-occupancy binary")
    p.add_argument("--arch", default="sm_90", help="the GPU's architecture (default sm_90, the H200)")
    p.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
