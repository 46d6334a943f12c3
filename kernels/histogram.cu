// 256-bin histogram of bytes (e.g. an 8-bit image), privatised per block.
//
// Pass 1, histogram256_partial: each block counts its grid-stride share of the input into a
// shared-memory histogram (shared-memory atomics: fast, and contention stays inside the
// block), then writes its 256 counts to partial[blockIdx.x * 256 .. + 256]. No global
// atomics, so the output needs no zeroing and every count is written exactly once.
// Pass 2, histogram256_merge: bins[b] = sum over p < num_partials of partial[p * 256 + b].
//
// Any block shape and grid for both (the block loops over the 256 bins).

#define BINS 256

extern "C" __global__ void histogram256_partial(const unsigned char* __restrict__ data,
                                                unsigned long long n,
                                                unsigned int* __restrict__ partial)
{
    __shared__ unsigned int hist[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;
    __syncthreads();

    const unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        atomicAdd(&hist[data[i]], 1u);
    }
    __syncthreads();

    unsigned int* mine = partial + (size_t)blockIdx.x * BINS;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) mine[b] = hist[b];
}

extern "C" __global__ void histogram256_merge(const unsigned int* __restrict__ partial,
                                              int num_partials,
                                              unsigned int* __restrict__ bins)
{
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < BINS; b += blockDim.x * gridDim.x) {
        unsigned int sum = 0;
        for (int p = 0; p < num_partials; ++p) sum += partial[(size_t)p * BINS + b];
        bins[b] = sum;
    }
}
