#![deny(deprecated)]

// 96 regs -> 3072 per warp -> 5 warps per sub-partition -> 20 warps / 8 = 2 blocks = 25%,
// on both default targets.
#[occupancy::check(block = (16, 16), regs = 96)]
fn launch_sgemm() {}

fn main() {
    launch_sgemm();
}
