#![deny(deprecated)]

// 10 x 10 = 100 threads = 4 warps, the last with 4 of 32 lanes: once, whatever the targets.
#[occupancy::check(block = (10, 10), regs = 32, target = ["sm_80", "sm_90"])]
fn launch_odd() {}

fn main() {
    launch_odd();
}
