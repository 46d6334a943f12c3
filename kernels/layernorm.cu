// Layer normalisation over the last dimension, row-major rows x cols:
//   mean_r = sum_c x[r][c] / cols
//   var_r  = sum_c (x[r][c] - mean_r)^2 / cols          (two passes: no cancellation)
//   rstd_r = 1 / sqrt(var_r + eps)
//   y[r][c] = (x[r][c] - mean_r) * rstd_r * gamma[c] + beta[c]
// and mean_r, rstd_r are written out (what a backward pass needs), as in PyTorch.
//
// One block per row; the grid strides over rows. Block: a multiple of 32 threads, at most
// 1024 (block reductions use warp shuffles).

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

// Block-wide sum returned to every thread; `scratch` holds 32 floats.
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

extern "C" __global__ void layernorm_rows(const float* __restrict__ x,
                                          const float* __restrict__ gamma,
                                          const float* __restrict__ beta,
                                          float* __restrict__ y,
                                          float* __restrict__ mean_out,
                                          float* __restrict__ rstd_out,
                                          int rows, int cols, float eps)
{
    __shared__ float scratch[32];
    const float inv_cols = 1.0f / (float)cols;
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;

        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
        const float mean = block_reduce_sum(s, scratch) * inv_cols;

        float q = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            const float d = xr[c] - mean;
            q = fmaf(d, d, q);
        }
        const float var = block_reduce_sum(q, scratch) * inv_cols;
        const float rstd = rsqrtf(var + eps);

        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            yr[c] = fmaf((xr[c] - mean) * rstd, gamma[c], beta[c]);
        }
        if (threadIdx.x == 0) {
            mean_out[row] = mean;
            rstd_out[row] = rstd;
        }
    }
}
