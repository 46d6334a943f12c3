__global__ void g(float* y, int m) {}
extern "C" cudaError_t run(float* y, int m, cudaStream_t s) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2 * ((m + 127) / 128), 1, 1);
  config.blockDim = dim3(128, 1, 1);
  config.dynamicSmemBytes = 32 * 1024;
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2; attrs[0].val.clusterDim.y = 1; attrs[0].val.clusterDim.z = 1;
  config.attrs = attrs; config.numAttrs = 1;
  cudaLaunchKernel((const void*)g, dim3(m), dim3(64), nullptr, 0, s);
  cuLaunchKernelEx(&drv, fn, params, nullptr);
  return cudaLaunchKernelEx(&config, g, y, m);
}
