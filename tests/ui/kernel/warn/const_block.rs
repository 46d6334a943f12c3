#![deny(deprecated)]

const BLOCK: u32 = 256;

// The same launch as manifest_regs.rs with the block as a constant, read from the file (the
// compiler confirms it): the same warnings, with the numbers.
#[occupancy::check(kernel = "k_regs", block = BLOCK, target = ["sm_80", "sm_90"], min_occupancy = 75%)]
fn launch_regs() {}

fn main() {
    launch_regs();
}
