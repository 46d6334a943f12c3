#![deny(deprecated)]

// sm_90: 768 threads = 24 warps -> 64 / 24 = 2 blocks = 48 of 64 warps = 75% < 80%.
#[occupancy::check(block = 768, regs = 32, target = "sm_90", min_occupancy = 80%)]
fn launch_wide() {}

fn main() {
    launch_wide();
}
