#![deny(warnings)]

const GRID: u32 = 4096;
const ROWS: u32 = 64;

#[occupancy::check(block = 256, regs = 32, grid = 1024)]
fn launch_linear() {}

#[occupancy::check(block = (16, 16), regs = 32, grid = (64, 64))]
fn launch_2d() {}

#[occupancy::check(block = (8, 8, 4), regs = 32, grid = (8, 8, 2))]
fn launch_3d() {}

// Constants in `grid` are type-checked by the compiler; the grid lints then skip.
#[occupancy::check(block = 256, regs = 32, grid = GRID)]
fn launch_const_grid() {}

#[occupancy::check(block = 256, regs = 32, grid = (ROWS, 2 * ROWS))]
fn launch_const_grid_2d() {}

// Clusters on cc 9.0+ targets only. 512-thread blocks: 4 per SM, under the 8 blocks per SM
// a cluster launch holds on cc 9.0, so clusters cost nothing. The H200's grid: 4 x 132 =
// 528 blocks per wave, 1056 = two full waves.
#[occupancy::check(block = 512, regs = 32, cluster = 2, target = ["sm_90", "H100", "B200"])]
fn launch_cluster() {}

#[occupancy::check(block = 512, regs = 32, cluster = (2, 1, 1), grid = (132, 8), target = "H200")]
fn launch_cluster_3d() {}

// 16 blocks is above the portable 8: the wrapper sets the non-portable attribute
// (`non_portable = true`), and sm_90 allows up to 16.
#[occupancy::check(block = 512, regs = 32, cluster = (4, 4), non_portable = true, target = "sm_90")]
fn launch_cluster_16() {}

// Clusters of 3 in a grid of 981 blocks on an H200: one full wave of 327 clusters.
#[occupancy::check(block = 256, regs = 32, cluster = 3, grid = 981, target = "H200", allow(cluster_limit))]
fn launch_cluster_wave() {}

// A compute-bound kernel's floor is 25%: 96 regs on sm_90 = 2 blocks of 8 warps = 25%.
#[occupancy::check(block = 256, regs = 96, target = "sm_90", class = "compute_bound")]
fn launch_gemm() {}

// An explicit floor wins over the class.
#[occupancy::check(block = 256, regs = 96, target = "sm_90", class = "memory_bound", min_occupancy = 25%)]
fn launch_explicit() {}

fn main() {
    launch_linear();
    launch_2d();
    launch_3d();
    launch_const_grid();
    launch_const_grid_2d();
    launch_cluster();
    launch_cluster_3d();
    launch_cluster_16();
    launch_cluster_wave();
    launch_gemm();
    launch_explicit();
}
