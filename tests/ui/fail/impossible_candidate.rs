// A candidate that cannot launch: one error on the candidate as written (not on the body's
// expression or the key), naming every target it is impossible on, and no lesser finding
// (`partial_warp`: 2000 is not a multiple of 32) beside it. The candidate that can launch
// (128) is checked as usual.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

// Candidates for the body's run-time block.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"], block = [128, 2000])]
fn launch_bound(n: u32, block: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

// The keys alone.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"], block = [128, 2000])]
fn launch_keys() {}

// The body states it: the error on the body's expression, once for both targets.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"])]
fn launch_stated(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (2000, 1, 1), shared_mem_bytes: 0 });
}

// Impossible on sm_80 only (200 KiB over its 163 KiB opt-in maximum): the error names
// sm_80; on sm_90, where it runs, the other findings stay.
#[occupancy::check(regs = 32, block = 100, smem = 200 KiB, opt_in = 200 KiB, target = ["sm_80", "sm_90"])]
fn launch_one_target() {}

fn main() {
    launch_bound(1, 128);
    launch_keys();
    launch_stated(1);
    launch_one_target();
}
