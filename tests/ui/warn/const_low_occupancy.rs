#![deny(deprecated)]

const REGS: u32 = 96;

// Same launch as low_occupancy_regs.rs with the registers as a constant: the front end reads
// it from the file (the compiler confirms the value), so the warning carries the numbers.
#[occupancy::check(block = 256, regs = REGS, target = "sm_90")]
fn launch_sgemm() {}

fn main() {
    launch_sgemm();
}
