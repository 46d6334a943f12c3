#![deny(deprecated)]

// Constants from another module, `as` casts and arithmetic, read from the body: the warning
// carries the numbers and points at the body's expression.
mod consts {
    pub const WARP_SIZE: usize = 32;
    pub const TILE: u32 = 32;
}

use consts::{TILE, WARP_SIZE};

struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90", min_occupancy = 80%)]
fn launch_tiles(rows: u32) {
    let cfg = LaunchConfig {
        grid_dim: (rows, 1, 1),
        block_dim: (WARP_SIZE as u32, TILE / 4, 1),
        shared_mem_bytes: TILE * TILE * 4 * 8,
    };
    launch(cfg);
}

fn main() {
    launch_tiles(100);
}
