//@file common.cuh
#define BLOCK 256
static inline unsigned next_pow2(unsigned n) { unsigned p = 1; while (p < n) p <<= 1; return p; }
//@file a.cu
#include "common.cuh"
__global__ void k(float* x, int n) {}
extern "C" void run(float* x, int n, int cols, int threads) {
  int block = 32;
  while (block < cols && block < 1024) block <<= 1;
  const size_t smem = static_cast<size_t>(cols) * sizeof(float);
  k<<<n, block, smem>>>(x, n);
  k<<<n, min(next_pow2(cols), 1024u)>>>(x, n);
  k<<<n, cols < 1024 ? 32 : BLOCK>>>(x, n);
  // occupancy: block = [128, (16, 16)], smem = [0, 4096]
  k<<<n, threads, cols * 4>>>(x, n);
}
