#![deny(warnings)]
#![allow(dead_code)]

// Parameters of every integer type, compared and cast in the body: the reader bounds each by
// its type's range (i128's least value is -2^127, which a negation of 2^127 overflows to:
// the macro, built with overflow checks, panicked on any i128 parameter). Every launch
// passes every lint.

#[derive(Clone, Copy)]
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_i128(n: i128) -> LaunchConfig {
    let block = if n < 0 { 128 } else { 256 };
    LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_u128(n: u128) -> LaunchConfig {
    let block = if n > u128::MAX / 2 { 128 } else { 256 };
    LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_narrow(a: i8, b: i16, c: isize, d: i64) -> LaunchConfig {
    let block = if (a as i128) + (b as i128) + (c as i128) + (d as i128) < 0 { 128 } else { 512 };
    LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 }
}

fn main() {
    assert_eq!(launch_i128(-1).block_dim.0, 128);
    assert_eq!(launch_u128(1).block_dim.0, 256);
    assert_eq!(launch_narrow(-1, 0, 0, 0).block_dim.0, 128);
}
