// Grids past the device's limits (2^31 - 1 x 65535 x 65535), huge values included.
#[occupancy::check(block = 256, regs = 32, grid = (4294967295, 4294967295, 2), target = "sm_90")]
fn launch_huge_grid() {}

#[occupancy::check(block = 256, regs = 32, grid = (1, 70000), target = "sm_90")]
fn launch_tall_grid() {}

// A grid that is not a whole number of clusters cannot launch (launch_impossible, on the grid).
#[occupancy::check(block = 256, regs = 32, grid = (4, 3), cluster = (2, 2), target = "H200")]
fn launch_ragged_clusters() {}

#[occupancy::check(block = 256, regs = 32, grid = 1000, cluster = 3, target = "H100")]
fn launch_ragged_clusters_1d() {}

// A huge cluster is refused, not multiplied into an overflow.
#[occupancy::check(block = 256, regs = 32, cluster = (4294967295, 4294967295, 2), target = "H100")]
fn launch_huge_cluster() {}

fn main() {
    launch_huge_grid();
    launch_tall_grid();
    launch_ragged_clusters();
    launch_ragged_clusters_1d();
    launch_huge_cluster();
}
