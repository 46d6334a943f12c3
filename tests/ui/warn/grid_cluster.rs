#![deny(deprecated)]

// Lints that read `grid` and `cluster`.

// undersized_grid: 264 blocks of 128 threads on an H200 (16 per SM x 132 SMs = 2112 per
// wave) use an eighth of the GPU.
#[occupancy::check(block = 128, regs = 32, grid = (132, 2), target = "H200")]
fn launch_small() {}

// tail_effect: 2112 + 200 blocks: a second wave with 200 of 2112 slots busy.
#[occupancy::check(block = 128, regs = 32, grid = 2312, target = "H200")]
fn launch_tail() {}

// cluster_limit: a cluster launch holds at most 8 blocks per SM on cc 9.0; these blocks
// would fit 16.
#[occupancy::check(block = 128, regs = 32, cluster = 2, target = "H200")]
fn launch_cluster() {}

// tail_effect of a cluster launch: clusters of 3 hold 327 x 3 = 981 blocks at a time on an
// H200 (not the plain 8 x 132 = 1056), so 999 blocks are one wave and a tail of 18.
#[occupancy::check(block = 256, regs = 32, cluster = 3, grid = 999, target = "H200", allow(cluster_limit))]
fn launch_cluster_tail() {}

fn main() {
    launch_small();
    launch_tail();
    launch_cluster();
    launch_cluster_tail();
}
