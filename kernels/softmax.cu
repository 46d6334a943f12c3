// Row softmax: out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r), row-major
// rows x cols, numerically stable (the row maximum is subtracted first).
//
// One block per row; the grid strides over rows, so any grid covers any number of rows.
// Block: a multiple of 32 threads, at most 1024 (block reductions use warp shuffles).
//
// softmax_rows        reads the row from global memory three times (L1/L2 serve the
//                     repeats); no shared memory beyond 33 floats.
// softmax_rows_cached reads the row once into dynamic shared memory: launch with
//                     cols * 4 bytes of dynamic shared memory. Rows over 12288 floats need
//                     more than 48 KiB, so the launch code must first raise
//                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (the opt-in).

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float neg_infinity() { return __int_as_float(0xff800000); }

__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

__device__ __forceinline__ float warp_reduce_max(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    return v;
}

// Block-wide sum / max, returned to every thread. `scratch` holds 32 floats; the trailing
// __syncthreads lets the caller reuse it at once.
__device__ __forceinline__ float block_reduce_sum(float v, float* scratch)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned warps = (blockDim.x + 31u) >> 5;
    v = warp_reduce_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : 0.0f;
    v = warp_reduce_sum(v);
    __syncthreads();
    return v;
}

__device__ __forceinline__ float block_reduce_max(float v, float* scratch)
{
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned warps = (blockDim.x + 31u) >> 5;
    v = warp_reduce_max(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : neg_infinity();
    v = warp_reduce_max(v);
    __syncthreads();
    return v;
}

extern "C" __global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out,
                                        int rows, int cols)
{
    __shared__ float scratch[32];
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* x = in + (size_t)row * cols;
        float* y = out + (size_t)row * cols;

        float m = neg_infinity();
        for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
        m = block_reduce_max(m, scratch);

        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
        s = block_reduce_sum(s, scratch);

        const float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) * inv;
    }
}

extern "C" __global__ void softmax_rows_cached(const float* __restrict__ in,
                                               float* __restrict__ out, int rows, int cols)
{
    extern __shared__ float row_cache[];  // cols floats
    __shared__ float scratch[32];
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* x = in + (size_t)row * cols;
        float* y = out + (size_t)row * cols;

        float m = neg_infinity();
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            const float v = x[c];
            row_cache[c] = v;
            m = fmaxf(m, v);
        }
        m = block_reduce_max(m, scratch);

        // Each thread rereads only the elements it cached itself: no barrier needed.
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            const float e = expf(row_cache[c] - m);
            row_cache[c] = e;
            s += e;
        }
        s = block_reduce_sum(s, scratch);

        const float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = row_cache[c] * inv;
        // The next row overwrites row_cache with the same thread-to-element mapping: each
        // thread only ever touches its own elements, so no barrier is needed here either.
    }
}
