// A thin C ABI over NVIDIA's cuda_occupancy.h (included from outside this repository) so
// that the benchmarks can time the header and the engine on the same inputs in one run.
#include <cuda_occupancy.h>

extern "C" {

// Device limits, in the order the Rust side passes them.
struct ShimDevice {
    int major, minor, max_threads_per_block, max_threads_per_sm, regs_per_block, regs_per_sm;
    int warp_size;
    long long smem_per_block, smem_per_sm, smem_per_block_optin, reserved_smem_per_block;
};

struct ShimKernel {
    int registers, max_threads, barriers, carveout, opted_in;
    long long static_smem, max_dynamic_smem;
};

static cudaOccDeviceProp props(const ShimDevice* d) {
    cudaOccDeviceProp p;
    p.computeMajor = d->major;
    p.computeMinor = d->minor;
    p.maxThreadsPerBlock = d->max_threads_per_block;
    p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
    p.regsPerBlock = d->regs_per_block;
    p.regsPerMultiprocessor = d->regs_per_sm;
    p.warpSize = d->warp_size;
    p.sharedMemPerBlock = (size_t)d->smem_per_block;
    p.sharedMemPerMultiprocessor = (size_t)d->smem_per_sm;
    p.numSms = 1;
    p.sharedMemPerBlockOptin = (size_t)d->smem_per_block_optin;
    p.reservedSharedMemPerBlock = (size_t)d->reserved_smem_per_block;
    return p;
}

static cudaOccFuncAttributes attrs(const ShimKernel* k) {
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = k->max_threads;
    a.numRegs = k->registers;
    a.sharedSizeBytes = (size_t)k->static_smem;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = k->opted_in ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    a.maxDynamicSharedSizeBytes = (size_t)k->max_dynamic_smem;
    a.numBlockBarriers = k->barriers;
    a.virtualResourceCount = 0;
    return a;
}

// Resident blocks per SM for one configuration (-1 when the header refuses the input).
int shim_blocks_per_sm(const ShimDevice* d, const ShimKernel* k, int block_size, long long dynamic_smem) {
    cudaOccDeviceProp p = props(d);
    cudaOccFuncAttributes a = attrs(k);
    cudaOccDeviceState s;
    s.carveoutConfig = k->carveout;
    cudaOccResult r;
    if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, block_size, (size_t)dynamic_smem) != CUDA_OCC_SUCCESS) {
        return -1;
    }
    return r.activeBlocksPerMultiprocessor;
}

// Sum of resident blocks over block sizes 1..=max_block for one kernel (a sweep).
long long shim_sweep(const ShimDevice* d, const ShimKernel* k, int max_block, long long dynamic_smem) {
    cudaOccDeviceProp p = props(d);
    cudaOccFuncAttributes a = attrs(k);
    cudaOccDeviceState s;
    s.carveoutConfig = k->carveout;
    long long total = 0;
    for (int b = 1; b <= max_block; ++b) {
        cudaOccResult r;
        if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, b, (size_t)dynamic_smem) == CUDA_OCC_SUCCESS) {
            total += r.activeBlocksPerMultiprocessor;
        }
    }
    return total;
}
}
