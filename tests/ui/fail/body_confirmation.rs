// The reader resolves `TILE` through the glob import; a macro-made item shadows it, which
// the reader cannot see. The compiler's confirmation of the value read catches it: a build
// error naming the expression, never a lint about another launch. With the value in the
// attribute, the compiler checks the body's expression against it instead.
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

fn main() {
    launch_misread(1);
    launch_stated(1);
    launch_stated_wrong(1);
}
