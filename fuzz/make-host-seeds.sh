#!/bin/sh
# Writes the seeds of the `host` fuzz target (fuzz/seeds/host/): a host object and a static
# library as a crate's build script makes them with nvcc (the PyPI wheel
# nvidia-cuda-nvcc==13.5.37, or $NVCC), from a few-line source for one architecture, with
# every section but the fatbins removed (objcopy) so that each seed is a few KB:
#   whole.o   nvcc -c (.nv_fatbin, LZ4-compressed)
#   rdc.o     nvcc -c --device-c (__nv_relfatbin, zstd), with an anonymous-namespace kernel
#   lib.a     ar of both
set -eu
cd "$(dirname "$0")"
nvcc=${NVCC:-$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13/bin/nvcc"))')}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/seed.cu" <<'CU'
namespace {
template <int N> __global__ void seed_tile(float* out) {
    __shared__ float tile[N];
    tile[threadIdx.x % N] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % N];
}
}  // namespace
extern "C" void seed_launch(float* f) { seed_tile<64><<<1, 64>>>(f); }
CU
"$nvcc" -c "$tmp/seed.cu" -o "$tmp/whole.o" -arch=sm_90 -Xfatbin=-compress-all --compress-mode=speed
"$nvcc" -c "$tmp/seed.cu" -o "$tmp/rdc.o" -arch=sm_90 --device-c
mkdir -p seeds/host
objcopy --only-section=.nv_fatbin "$tmp/whole.o" seeds/host/whole.o
objcopy --only-section=__nv_relfatbin "$tmp/rdc.o" seeds/host/rdc.o
rm -f seeds/host/lib.a
ar cqS seeds/host/lib.a seeds/host/whole.o seeds/host/rdc.o
ls -l seeds/host
