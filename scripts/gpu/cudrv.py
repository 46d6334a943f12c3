"""A thin layer over `cuda.bindings` (driver + NVRTC) for the probes in this folder.

Compile CUDA C++ with NVRTC for the device's own architecture, load it, set function
attributes, launch, and time launches with CUDA events. Every call checks its CUresult:
a failure raises `CudaError` naming the call.

Used by `smem_config.py` and `lint_effect.py`; needs a GPU and its driver for everything
but `compile_cubin`.
"""

import ctypes

import numpy as np

try:
    from cuda.bindings import driver as cu
    from cuda.bindings import nvrtc
except ImportError:  # cuda-python 12.x before the cuda.bindings namespace
    from cuda import cuda as cu  # type: ignore
    from cuda import nvrtc  # type: ignore


class CudaError(RuntimeError):
    pass


def check(result, what):
    """The values after a CUresult / nvrtcResult, or CudaError."""
    err, *rest = result
    if isinstance(err, nvrtc.nvrtcResult):
        ok = err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    else:
        ok = err == cu.CUresult.CUDA_SUCCESS
    if not ok:
        raise CudaError(f"{what}: {err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def compile_cubin(source, arch, options=(), name="probe.cu"):
    """(cubin bytes, NVRTC log) for `source` compiled for `arch` ("sm_90")."""
    prog = check(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []), "nvrtcCreateProgram")
    opts = [f"--gpu-architecture={arch}".encode(), b"-default-device"] + [o.encode() for o in options]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    size = check(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
    log = b" " * size
    check(nvrtc.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CudaError(f"nvrtcCompileProgram {name} {options}: {err}\n{log.decode(errors='replace')}")
    size = check(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
    cubin = b" " * size
    check(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
    check(nvrtc.nvrtcDestroyProgram(prog), "nvrtcDestroyProgram")
    return cubin, log.decode(errors="replace").strip("\x00 \n")


class Gpu:
    """Device 0 with a primary context made current."""

    def __init__(self):
        check(cu.cuInit(0), "cuInit")
        self.device = check(cu.cuDeviceGet(0), "cuDeviceGet")
        self.context = check(cu.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        check(cu.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        attr = lambda a: check(cu.cuDeviceGetAttribute(a, self.device), f"cuDeviceGetAttribute {a}")
        A = cu.CUdevice_attribute
        major = attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
        minor = attr(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        self.arch = f"sm_{major}{minor}"
        self.sm_count = attr(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        name = check(cu.cuDeviceGetName(256, self.device), "cuDeviceGetName")
        self.name = name.split(b"\x00")[0].decode()
        self.driver_version = check(cu.cuDriverGetVersion(), "cuDriverGetVersion")
        self.stream = check(cu.cuStreamCreate(0), "cuStreamCreate")

    def load(self, cubin):
        return check(cu.cuModuleLoadData(cubin), "cuModuleLoadData")

    def function(self, module, name):
        return check(cu.cuModuleGetFunction(module, name.encode()), f"cuModuleGetFunction {name}")

    def alloc(self, nbytes):
        return check(cu.cuMemAlloc(max(int(nbytes), 4)), "cuMemAlloc")

    def upload(self, array):
        array = np.ascontiguousarray(array)
        ptr = self.alloc(array.nbytes)
        check(cu.cuMemcpyHtoD(ptr, array.ctypes.data, array.nbytes), "cuMemcpyHtoD")
        return ptr

    def download(self, ptr, like):
        out = np.empty_like(like)
        check(cu.cuMemcpyDtoH(out.ctypes.data, ptr, out.nbytes), "cuMemcpyDtoH")
        return out

    def memset(self, ptr, nbytes):
        check(cu.cuMemsetD8(ptr, 0, int(nbytes)), "cuMemsetD8")

    def sync(self):
        check(cu.cuStreamSynchronize(self.stream), "cuStreamSynchronize")


def func_attr(func, attribute):
    return check(cu.cuFuncGetAttribute(attribute, func), f"cuFuncGetAttribute {attribute}")


def set_func_attr(func, attribute, value):
    check(cu.cuFuncSetAttribute(func, attribute, int(value)), f"cuFuncSetAttribute {attribute}={value}")


FA = cu.CUfunction_attribute


def resources(func):
    """The function's registers, static shared memory and local memory per thread."""
    return {
        "num_regs": func_attr(func, FA.CU_FUNC_ATTRIBUTE_NUM_REGS),
        "static_smem": func_attr(func, FA.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
        "local_bytes": func_attr(func, FA.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
    }


def set_opt_in(func, max_dynamic_bytes):
    set_func_attr(func, FA.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_dynamic_bytes)


def set_carveout(func, percent):
    """-1 (the default) or 0..100."""
    set_func_attr(func, FA.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent)


def blocks_per_sm(func, threads, dynamic_bytes):
    return check(
        cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(func, threads, dynamic_bytes),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    )


def args(*values):
    """Kernel parameters for cuLaunchKernel: CUdeviceptr as u64, ints as i32, floats as f32
    (or an explicit ctypes value)."""
    holders = []
    for v in values:
        if isinstance(v, cu.CUdeviceptr):
            holders.append(ctypes.c_uint64(int(v)))
        elif isinstance(v, ctypes._SimpleCData):
            holders.append(v)
        elif isinstance(v, float):
            holders.append(ctypes.c_float(v))
        elif isinstance(v, int):
            holders.append(ctypes.c_int32(v))
        else:
            raise TypeError(f"unsupported kernel argument {v!r}")
    pointers = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
    return holders, pointers


def launch(gpu, func, grid, block, dynamic_bytes, params):
    """One launch; `params` from `args`. grid and block are (x, y, z) tuples or ints."""
    g = grid if isinstance(grid, tuple) else (grid, 1, 1)
    b = block if isinstance(block, tuple) else (block, 1, 1)
    _holders, pointers = params
    check(
        cu.cuLaunchKernel(func, *g, *b, int(dynamic_bytes), gpu.stream, ctypes.addressof(pointers), 0),
        "cuLaunchKernel",
    )


# CUDA 12.8 added cuEventElapsedTime_v2; some bindings name only one of the two.
_elapsed = getattr(cu, "cuEventElapsedTime", None) or getattr(cu, "cuEventElapsedTime_v2")


def time_launches(gpu, func, grid, block, dynamic_bytes, params, runs, warmup=3):
    """Milliseconds of each of `runs` launches, each between its own pair of CUDA events,
    after `warmup` untimed launches."""
    for _ in range(warmup):
        launch(gpu, func, grid, block, dynamic_bytes, params)
    gpu.sync()
    start = check(cu.cuEventCreate(0), "cuEventCreate")
    stop = check(cu.cuEventCreate(0), "cuEventCreate")
    times = []
    for _ in range(runs):
        check(cu.cuEventRecord(start, gpu.stream), "cuEventRecord")
        launch(gpu, func, grid, block, dynamic_bytes, params)
        check(cu.cuEventRecord(stop, gpu.stream), "cuEventRecord")
        check(cu.cuEventSynchronize(stop), "cuEventSynchronize")
        times.append(check(_elapsed(start, stop), "cuEventElapsedTime"))
    check(cu.cuEventDestroy(start), "cuEventDestroy")
    check(cu.cuEventDestroy(stop), "cuEventDestroy")
    return times
