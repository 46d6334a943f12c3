// Two kernels written for measuring the lints' effect (scripts/gpu/lint_effect.py); the
// other kernels measured there are the project's own (kernels/*.cu).
//
// Compiled with NVRTC: no headers, builtins only.

#ifndef ORBIT_LANES
#define ORBIT_LANES 5
#endif
#ifndef ORBIT_MIN_BLOCKS
#define ORBIT_MIN_BLOCKS 1
#endif

// Compute-bound: for each c[i], `iters` steps of z <- z^2 + c (complex f32, clamped), with
// ORBIT_LANES elements per thread in flight, and the count of steps with |Re z| < 2.
// out[i] = |z|^2 + count. Grid-stride: any grid covers any n. Block: 256 threads or fewer.
// With NVRTC 12.9 for sm_90: 43 registers (ORBIT_MIN_BLOCKS 1), 39 with
// __launch_bounds__(256, 6) (ORBIT_MIN_BLOCKS 6), no spills either way.
extern "C" __global__ void __launch_bounds__(256, ORBIT_MIN_BLOCKS)
orbit(const float2* __restrict__ c, float* __restrict__ out, unsigned n, int iters)
{
    const unsigned stride = gridDim.x * blockDim.x * ORBIT_LANES;
    for (unsigned base = blockIdx.x * blockDim.x * ORBIT_LANES + threadIdx.x; base < n;
         base += stride) {
        float zr[ORBIT_LANES], zi[ORBIT_LANES], cr[ORBIT_LANES], ci[ORBIT_LANES];
        int count[ORBIT_LANES];
#pragma unroll
        for (int l = 0; l < ORBIT_LANES; l++) {
            const unsigned i = base + l * blockDim.x;
            const float2 v = i < n ? c[i] : make_float2(0.f, 0.f);
            cr[l] = v.x; ci[l] = v.y; zr[l] = 0.f; zi[l] = 0.f; count[l] = 0;
        }
        for (int t = 0; t < iters; t++) {
#pragma unroll
            for (int l = 0; l < ORBIT_LANES; l++) {
                const float r = fmaf(zr[l], zr[l], fmaf(-zi[l], zi[l], cr[l]));
                zi[l] = fmaf(2.f * zr[l], zi[l], ci[l]);
                zr[l] = fminf(fmaxf(r, -4.f), 4.f);
                count[l] += (fabsf(r) < 2.f);
            }
        }
#pragma unroll
        for (int l = 0; l < ORBIT_LANES; l++) {
            const unsigned i = base + l * blockDim.x;
            if (i < n) out[i] = fmaf(zr[l], zr[l], zi[l] * zi[l]) + (float)count[l];
        }
    }
}

// Memory-bound, staged through shared memory: the input in tiles of `tile` floats (the
// dynamic shared memory is tile * 4 bytes); each tile is loaded, then written back with
// each group of 32 floats reversed, scaled: out[i] = 2 * in[i ^ 31]. The output does not
// depend on the tile size. `tile` and `n` must be multiples of 32. Grid-stride over tiles.
extern "C" __global__ void staged_reverse(const float* __restrict__ in, float* __restrict__ out,
                                          unsigned n, unsigned tile)
{
    extern __shared__ float buf[];
    const unsigned tiles = (n + tile - 1) / tile;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
        const unsigned t0 = t * tile;
        const unsigned len = min(tile, n - t0);
        for (unsigned j = threadIdx.x; j < len; j += blockDim.x) buf[j] = in[t0 + j];
        __syncthreads();
        for (unsigned j = threadIdx.x; j < len; j += blockDim.x) out[t0 + j] = 2.f * buf[j ^ 31u];
        __syncthreads();  // the tile is rewritten by the next iteration
    }
}
