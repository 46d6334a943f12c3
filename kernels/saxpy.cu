// Element-wise vector kernels: SAXPY and vector add.
//
// Both are grid-stride loops: any grid covers any n (64-bit), so the launch can size the
// grid to fill the GPU (a few waves of resident blocks) instead of to n. Any block shape
// works; one thread handles elements i, i + gridDim.x * blockDim.x, ...
//
// Compiled with NVRTC: no headers, builtins only.

// out[i] = a * x[i] + y[i] for i in [0, n). Out of place: `out` may not alias `x` or `y`.
extern "C" __global__ void saxpy(unsigned long long n, float a,
                                 const float* __restrict__ x,
                                 const float* __restrict__ y,
                                 float* __restrict__ out)
{
    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        out[i] = fmaf(a, x[i], y[i]);
    }
}

// c[i] = a[i] + b[i] for i in [0, n). `c` may not alias `a` or `b`.
extern "C" __global__ void vector_add(unsigned long long n,
                                      const float* __restrict__ a,
                                      const float* __restrict__ b,
                                      float* __restrict__ c)
{
    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        c[i] = a[i] + b[i];
    }
}
