// Sum reduction: one partial sum per block, using warp shuffles and one shared-memory slot
// per warp.
//
// Pass 1: reduce_sum(in, n, partial) with G blocks writes partial[0..G).
// Pass 2: reduce_sum(partial, G, total) with 1 block writes total[0].
//
// Block: a multiple of 32 threads, at most 256: warp_sums holds one slot per warp of the
// largest block, and __launch_bounds__(256) makes the driver refuse a larger block instead
// of letting it write past the array. The grid-stride loop accepts any grid and any n
// (64-bit).

#define REDUCE_MAX_THREADS 256
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(REDUCE_MAX_THREADS)
reduce_sum(const float* __restrict__ in, unsigned long long n, float* __restrict__ partial)
{
    __shared__ float warp_sums[REDUCE_MAX_THREADS / 32];

    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        sum += in[i];
    }

    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    sum = warp_reduce_sum(sum);
    if (lane == 0) {
        warp_sums[warp] = sum;
    }
    __syncthreads();

    if (warp == 0) {
        const unsigned warps = (blockDim.x + 31u) >> 5;
        sum = lane < warps ? warp_sums[lane] : 0.0f;
        sum = warp_reduce_sum(sum);
        if (lane == 0) {
            partial[blockIdx.x] = sum;
        }
    }
}
