// Single-precision GEMM: C = alpha * A * B + beta * C, row-major.
//
// A is M x K with leading dimension lda (>= K), B is K x N (ldb >= N), C is M x N (ldc >= N).
// As in BLAS, when beta == 0 C is not read, so it may hold anything (NaN included).
// Any M, N, K >= 0: tiles that cross the matrix edge load zeros and store only what is
// inside. Grid: (ceil(N / tile_n), ceil(M / tile_m)).

// ---------------------------------------------------------------------------------------
// sgemm_tiled: 64 x 64 tile of C per block, 16 x 16 threads, 4 x 4 outputs per thread held
// in registers, K in steps of 16 through shared memory (8448 B static).
// Block: exactly (16, 16, 1).

#define T_BM 64
#define T_BN 64
#define T_BK 16
#define T_THREADS 256

extern "C" __global__ void __launch_bounds__(T_THREADS)
sgemm_tiled(int M, int N, int K, float alpha,
            const float* __restrict__ A, int lda,
            const float* __restrict__ B, int ldb,
            float beta, float* __restrict__ C, int ldc)
{
    // A tile stored transposed (k-major) so the inner loop reads rows of both tiles.
    // +4 padding keeps the transposed stores from hitting one bank.
    __shared__ float As[T_BK][T_BM + 4];
    __shared__ float Bs[T_BK][T_BN];

    const int tx = threadIdx.x;  // 0..15: column group
    const int ty = threadIdx.y;  // 0..15: row group
    const int tid = ty * 16 + tx;
    const int row0 = blockIdx.y * T_BM;
    const int col0 = blockIdx.x * T_BN;

    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += T_BK) {
#pragma unroll
        for (int e = tid; e < T_BM * T_BK; e += T_THREADS) {
            const int m = e / T_BK, k = e % T_BK;
            const int gm = row0 + m, gk = k0 + k;
            As[k][m] = (gm < M && gk < K) ? A[(size_t)gm * lda + gk] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < T_BK * T_BN; e += T_THREADS) {
            const int k = e / T_BN, n = e % T_BN;
            const int gk = k0 + k, gn = col0 + n;
            Bs[k][n] = (gk < K && gn < N) ? B[(size_t)gk * ldb + gn] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < T_BK; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int gm = row0 + ty + 16 * i;
        if (gm >= M) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int gn = col0 + tx + 16 * j;
            if (gn >= N) continue;
            float* c = &C[(size_t)gm * ldc + gn];
            *c = beta == 0.0f ? alpha * acc[i][j] : fmaf(alpha, acc[i][j], beta * *c);
        }
    }
}

// ---------------------------------------------------------------------------------------
// sgemm_128x128_8x8: 128 x 128 tile of C per block, 256 threads, an 8 x 8 micro-tile of C
// per thread (64 accumulators + 16 operands in registers), K in steps of 8 (8 KiB static
// shared memory). Register-heavy by design: ptxas gives it 117 to 125 registers per thread
// (NVRTC 12.9, sm_75 to sm_120), so registers, not warps or shared memory, limit the
// resident blocks: 2 per SM.
// Block: exactly 256 threads (1-D). __launch_bounds__(256, 2) caps registers at 128.
//
// Thread (tx, ty) = (tid % 16, tid / 16) owns rows {ty*4 + i, 64 + ty*4 + i} and columns
// {tx*4 + j, 64 + tx*4 + j}, i, j in 0..4: split halves keep shared-memory reads
// conflict-free and vectorisable.

#define R_BM 128
#define R_BN 128
#define R_BK 8
#define R_THREADS 256

extern "C" __global__ void __launch_bounds__(R_THREADS, 2)
sgemm_128x128_8x8(int M, int N, int K, float alpha,
                  const float* __restrict__ A, int lda,
                  const float* __restrict__ B, int ldb,
                  float beta, float* __restrict__ C, int ldc)
{
    __shared__ __align__(16) float As[R_BK][R_BM];  // k-major (A transposed)
    __shared__ __align__(16) float Bs[R_BK][R_BN];

    const int tid = threadIdx.x;
    const int tx = tid % 16;
    const int ty = tid / 16;
    const int row0 = blockIdx.y * R_BM;
    const int col0 = blockIdx.x * R_BN;

    // Load mapping: A tile 128 x 8, thread loads row tid / 2, k (tid % 2) * 4 + 0..3;
    // B tile 8 x 128, thread loads k tid / 32, columns (tid % 32) * 4 + 0..3.
    const int a_m = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_n = (tid % 32) * 4;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R_BK) {
        const int gm = row0 + a_m;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int gk = k0 + a_k + q;
            As[a_k + q][a_m] = (gm < M && gk < K) ? A[(size_t)gm * lda + gk] : 0.0f;
        }
        const int gk = k0 + b_k;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int gn = col0 + b_n + q;
            Bs[b_k][b_n + q] = (gk < K && gn < N) ? B[(size_t)gk * ldb + gn] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < R_BK; ++k) {
            const float4 a_lo = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
            const float4 a_hi = *reinterpret_cast<const float4*>(&As[k][64 + ty * 4]);
            const float4 b_lo = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
            const float4 b_hi = *reinterpret_cast<const float4*>(&Bs[k][64 + tx * 4]);
            const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gm = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (gm >= M) continue;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int gn = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
            if (gn >= N) continue;
            float* c = &C[(size_t)gm * ldc + gn];
            *c = beta == 0.0f ? alpha * acc[i][j] : fmaf(alpha, acc[i][j], beta * *c);
        }
    }
}
