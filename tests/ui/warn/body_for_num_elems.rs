#![deny(deprecated)]

// cudarc's `LaunchConfig::for_num_elems` hides a 1024-thread block: on cc 8.6 one such
// block is 32 of 48 warps, and above 32 registers cc 8.0 / 9.0 hold only one.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

impl LaunchConfig {
    fn for_num_elems(n: u32) -> Self {
        LaunchConfig { grid_dim: (n.div_ceil(1024), 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 }
    }
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 40, target = ["sm_80", "sm_86"], min_occupancy = 75%)]
fn launch_unary(n: u32) {
    let cfg = LaunchConfig::for_num_elems(n);
    launch(cfg);
}

fn main() {
    launch_unary(1 << 20);
}
