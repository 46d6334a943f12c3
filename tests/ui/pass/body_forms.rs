#![deny(warnings)]
#![allow(dead_code)]

// Every form the body reader reads, on launches that pass every lint: the attribute states
// no launch value, and every constant read is confirmed by the compiler (a wrong read would
// fail this build).
mod consts {
    pub const WARP_SIZE: usize = 32;
    pub const TILE: u32 = 16;
    pub(crate) const ROWS_PER_BLOCK: u32 = 8;
    pub const fn smem_bytes(tile: u32, halo: u32) -> u32 {
        let side = tile + 2 * halo;
        side * side * 4
    }
    pub mod nested {
        pub const DOUBLE: u32 = super::TILE * 2;
    }
}

use consts::{TILE, WARP_SIZE};

#[derive(Clone, Copy)]
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

struct Stream;
impl Stream {
    fn launch(&self, _: LaunchConfig) {}
}

/// A crate helper with a const generic (the dfdx style).
fn launch_cfg<const NUM_THREADS: u32>(n: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(NUM_THREADS), 1, 1),
        block_dim: (NUM_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

// A literal, inline in the launch call.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"])]
fn literal_inline(s: &Stream, n: u32) {
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 });
}

// Constants through `use`, casts, a nested module, `crate::` and `self::` paths.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"])]
fn constants(s: &Stream, rows: u32) {
    let cfg = LaunchConfig {
        grid_dim: (rows.div_ceil(crate::consts::ROWS_PER_BLOCK), 1, 1),
        block_dim: (WARP_SIZE as u32, self::consts::ROWS_PER_BLOCK, 1),
        shared_mem_bytes: TILE * consts::nested::DOUBLE * core::mem::size_of::<f32>() as u32,
    };
    s.launch(cfg);
}

// A `const fn` of the crate, `let` bindings, integer methods.
#[occupancy::check(regs = 32, target = "sm_90")]
fn arithmetic(s: &Stream, n: u32) {
    let side = TILE.min(32).max(8);
    let block = (side * side).next_power_of_two();
    let cfg = LaunchConfig {
        grid_dim: (n, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: consts::smem_bytes(TILE, 2),
    };
    s.launch(cfg);
}

// The crate's helper with a const generic argument.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"])]
fn helper(s: &Stream, n: u32) {
    let cfg = launch_cfg::<256>(n);
    s.launch(cfg);
}

// cudarc's `for_num_elems` at 32 registers: 1024 threads fill sm_80 and sm_90 twice.
#[occupancy::check(regs = 32, target = ["sm_80", "sm_90"])]
fn for_num_elems(s: &Stream, n: u32) {
    s.launch(LaunchConfig::for_num_elems(n));
}

// A constant declared in the body, shadowed by a `let` of the same name read as the local.
#[occupancy::check(regs = 32, target = "sm_90")]
fn local_items(s: &Stream, n: u32) {
    const THREADS: u32 = 128;
    let threads = THREADS * 2;
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    let s = Stream;
    literal_inline(&s, 10);
    constants(&s, 10);
    arithmetic(&s, 10);
    helper(&s, 10);
    for_num_elems(&s, 10);
    local_items(&s, 10);
}
