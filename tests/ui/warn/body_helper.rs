#![deny(deprecated)]

// A crate helper with a const generic: the block is its argument, read through the helper.
mod launch {
    pub struct LaunchConfig {
        pub grid_dim: (u32, u32, u32),
        pub block_dim: (u32, u32, u32),
        pub shared_mem_bytes: u32,
    }

    pub fn launch_cfg<const NUM_THREADS: u32>(n: u32) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (n.div_ceil(NUM_THREADS), 1, 1),
            block_dim: (NUM_THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    pub fn go(_: LaunchConfig) {}
}

use launch::launch_cfg;

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_dequantize(n: u32) {
    let cfg = launch_cfg::<32>(n);
    launch::go(cfg);
}

fn main() {
    launch_dequantize(4096);
}
