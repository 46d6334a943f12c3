#![deny(warnings)]

// A constant of another integer type than u32 is read with its type; the compiler confirms
// the value (`BLOCK == 256` is a usize comparison).
const BLOCK: usize = 256;
const WARP: u64 = 32;

#[occupancy::check(block = BLOCK, regs = 32, target = "sm_90")]
fn launch() {}

#[occupancy::check(block = (WARP as u32 * 8), regs = 32, target = "sm_90")]
fn launch_cast() {}

fn main() {
    launch();
    launch_cast();
}
