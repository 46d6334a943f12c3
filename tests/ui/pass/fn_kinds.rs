#![deny(warnings)]

#[occupancy::check(block = 256, regs = 32)]
const fn launch_const(n: u32) -> u32 {
    n * 2
}

#[occupancy::check(block = 256, regs = 32)]
async fn launch_async() -> u32 {
    3
}

/// Documented wrapper.
///
/// # Safety
/// None needed; the attribute keeps this doc comment and `unsafe`.
#[occupancy::check(block = 256, regs = 32)]
pub unsafe fn launch_unsafe() -> u32 {
    4
}

#[occupancy::check(block = 256, regs = 32)]
fn launch_tail_block() -> [u32; 2] {
    [1, 2]
}

#[occupancy::check(block = 256, regs = 32)]
fn launch_empty() {}

const ALREADY: u32 = launch_const(21);

fn main() {
    assert_eq!(ALREADY, 42);
    let _future = launch_async();
    assert_eq!(unsafe { launch_unsafe() }, 4);
    assert_eq!(launch_tail_block(), [1, 2]);
    launch_empty();
}
