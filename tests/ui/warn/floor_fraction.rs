#![deny(deprecated)]

// sm_90: 40 regs -> 1280 per warp -> 12 warps per sub-partition -> 48 / 8 = 6 blocks =
// 48 of 64 warps = 75% < 0.8. 80% = 51.2 -> 52 warps -> 7 blocks -> 14 warps per
// sub-partition -> 1170 regs per warp -> 1024 -> 32 regs/thread, which gives 8 blocks.
#[occupancy::check(block = 256, regs = 40, target = "sm_90", min_occupancy = 0.8)]
fn sgemm_tiled() {}

fn main() {
    sgemm_tiled();
}
