// Matrix transpose through a padded shared-memory tile: out (cols x rows) = in^T, where in
// is rows x cols, both row-major and dense.
//
// A block moves 32 x 32 tiles: it reads rows of the tile (coalesced), writes them to shared
// memory, and writes columns of the tile back as rows of `out` (coalesced again). The tile
// is 32 x 33 floats: the extra column shifts each row by one bank, so reading a column of
// the tile touches 32 different banks instead of one.
//
// Block: exactly (32, 8, 1); each thread moves 4 elements of a tile. The block strides over
// tiles in both dimensions, so any grid covers any matrix.

#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled(const float* __restrict__ in,
                                           float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    const int tiles_x = (cols + TILE - 1) / TILE;  // tiles along in's columns
    const int tiles_y = (rows + TILE - 1) / TILE;  // tiles along in's rows

    for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
        for (int tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) {
            const int c = tx * TILE + threadIdx.x;
#pragma unroll
            for (int j = 0; j < TILE; j += BLOCK_ROWS) {
                const int r = ty * TILE + threadIdx.y + j;
                if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)r * cols + c];
            }
            __syncthreads();

            // out row = in column, out column = in row.
            const int oc = ty * TILE + threadIdx.x;
#pragma unroll
            for (int j = 0; j < TILE; j += BLOCK_ROWS) {
                const int orow = tx * TILE + threadIdx.y + j;
                if (orow < cols && oc < rows) out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
            }
            __syncthreads();  // the tile is rewritten by the next iteration
        }
    }
}
