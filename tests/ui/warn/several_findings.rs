#![deny(deprecated)]

// 200 threads = 7 warps (a partial warp); 128 regs -> 4096 per warp -> 4 warps per
// sub-partition -> 16 / 7 = 2 blocks = 14 of 64 warps = 21.88% on both targets.
#[occupancy::check(block = 200, regs = 128, target = ["sm_80", "sm_90"])]
fn launch_everything_wrong() {}

fn main() {
    launch_everything_wrong();
}
