#![deny(warnings)]

// Resources from the resource manifest ($OCCUPANCY_MANIFEST: tests/ui/fixtures/probe.manifest.json,
// the probe kernels compiled for sm_80 and sm_90 by NVRTC 12.9). sm_86 uses the sm_80
// cubin, H100 the sm_90 one.
#[occupancy::check(kernel = "k_plain", block = 256, target = ["sm_80", "sm_86", "sm_90", "H100"])]
fn launch_plain() {}

// A C++ kernel by its demangled name (the symbol is _Z8tile_sumILi16EEvPfPKfS2_S2_dii).
#[occupancy::check(kernel = "tile_sum<16>", block = 256)]
fn launch_tile_sum() {}

// Constants: the compiler evaluates the check with the manifest's registers per target.
const BLOCK: u32 = 128;

#[occupancy::check(kernel = "k_plain", block = BLOCK, target = ["sm_80", "sm_90"])]
fn launch_const() {}

// k_cluster has __cluster_dims__(2, 1, 1) on sm_90: a cluster launch. 512 threads: 4 blocks
// per SM, 528 per wave on the H200; 1056 blocks = two full waves.
#[occupancy::check(kernel = "k_cluster", block = 512, target = "H200", grid = 1056)]
fn launch_cluster() {}

fn main() {
    launch_plain();
    launch_tile_sum();
    launch_const();
    launch_cluster();
}
