// 2-D convolution (cross-correlation, as in image processing and deep learning) of a
// single-channel row-major width x height image with a (2r+1) x (2r+1) filter, clamping
// reads at the image edge (replicate padding):
//   out[y][x] = sum_{dy,dx in [-r, r]} filter[(dy+r)(2r+1) + (dx+r)]
//                                      * in[clamp(y+dy, 0, height-1)][clamp(x+dx, 0, width-1)]
//
// Each block computes a blockDim.x x blockDim.y tile of `out`. It first loads the tile plus
// an r-wide halo, and the filter, into dynamic shared memory, so every input pixel is read
// from global memory about once instead of (2r+1)^2 times.
//
// Any block shape (up to the 1024-thread limit) and any grid (the block strides over
// tiles). Dynamic shared memory, bytes:
//   ((blockDim.x + 2r) * (blockDim.y + 2r) + (2r+1)^2) * 4

extern "C" __global__ void conv2d(const float* __restrict__ in, float* __restrict__ out,
                                  int width, int height,
                                  const float* __restrict__ filter, int radius)
{
    extern __shared__ float smem[];
    const int fw = 2 * radius + 1;
    const int tw = blockDim.x + 2 * radius;  // tile width with halo
    const int th = blockDim.y + 2 * radius;
    float* tile = smem;             // th x tw
    float* f = smem + tw * th;      // fw x fw

    const int threads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < fw * fw; i += threads) f[i] = filter[i];

    const int tiles_x = (width + blockDim.x - 1) / blockDim.x;
    const int tiles_y = (height + blockDim.y - 1) / blockDim.y;
    for (int by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        for (int bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
            const int x0 = bx * blockDim.x - radius;
            const int y0 = by * blockDim.y - radius;
            for (int i = tid; i < tw * th; i += threads) {
                const int gx = min(max(x0 + i % tw, 0), width - 1);
                const int gy = min(max(y0 + i / tw, 0), height - 1);
                tile[i] = in[(size_t)gy * width + gx];
            }
            __syncthreads();

            const int x = bx * blockDim.x + threadIdx.x;
            const int y = by * blockDim.y + threadIdx.y;
            if (x < width && y < height) {
                float acc = 0.0f;
                for (int dy = 0; dy < fw; ++dy) {
                    const float* trow = tile + (threadIdx.y + dy) * tw + threadIdx.x;
                    const float* frow = f + dy * fw;
                    for (int dx = 0; dx < fw; ++dx) acc = fmaf(frow[dx], trow[dx], acc);
                }
                out[(size_t)y * width + x] = acc;
            }
            __syncthreads();  // the tile is rewritten by the next iteration
        }
    }
}
