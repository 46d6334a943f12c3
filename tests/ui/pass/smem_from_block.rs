#![deny(warnings)]

// `block` candidates alone check a launch whose shared memory is computed from the block:
// (128, 512 B) and (256, 1 KiB).
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90", block = [128, 256])]
fn launch_per_thread(n: u32, block: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

fn main() {
    launch_per_thread(1, 128);
}
