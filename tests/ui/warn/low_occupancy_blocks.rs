#![deny(deprecated)]

// sm_86: one warp per block, at most 16 resident blocks -> 16 of 48 warps = 33.33%.
#[occupancy::check(block = 32, regs = 32, target = "sm_86")]
fn launch_tiny() {}

fn main() {
    launch_tiny();
}
