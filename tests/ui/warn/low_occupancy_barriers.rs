#![deny(deprecated)]

// sm_90: 64 barriers per SM / 16 per block = 4 blocks of 2 warps = 8 of 64 warps = 12.5%.
#[occupancy::check(block = 64, regs = 32, barriers = 16, target = "sm_90")]
fn launch_pipelined() {}

fn main() {
    launch_pipelined();
}
