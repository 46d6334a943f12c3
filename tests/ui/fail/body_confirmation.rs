// The reader resolves `TILE` through the glob import; a macro-made item shadows it, which
// the reader cannot see. The compiler's confirmation of the value read catches it: a build
// error naming the expression, never a lint about another launch. With the value in the
// attribute, the compiler checks the body's expression against it instead. A name that only
// decides which path runs (a condition) or bounds a run-time set is confirmed the same way.
mod other {
    pub const TILE: u32 = 64;
}
use other::*;

macro_rules! tile {
    () => {
        const TILE: u32 = 8;
    };
}
tile!();

struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_misread(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE * 4, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(block = 32, regs = 32, target = "sm_90", allow(block_limit))]
fn launch_stated(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE * 4, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(block = 64, regs = 32, target = "sm_90")]
fn launch_stated_wrong(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (TILE * 4, 1, 1), shared_mem_bytes: 0 });
}

// A name that only decides a path, or bounds a run-time set, is confirmed too: here the
// reader takes the `256` arm and the sizes up to 256 from `TILE` = 64.
#[occupancy::check(regs = 32, target = "sm_90", allow(block_limit, partial_warp))]
fn launch_condition(n: u32) {
    let block = if TILE > 16 { 256 } else { 32 };
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = "sm_90", allow(block_limit, partial_warp))]
fn launch_bound(n: u32) {
    let block = n.min(TILE * 4).next_power_of_two();
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_misread(1);
    launch_stated(1);
    launch_stated_wrong(1);
    launch_condition(1);
    launch_bound(1);
}
