#![deny(deprecated)]

// k_regs: 52 regs on sm_80 (4 blocks = 50%), 46 on sm_90 (5 blocks = 62.5%); sm_86 runs
// the sm_80 cubin: 1792 per warp -> 9 warps per sub-partition -> 36 / 8 = 4 blocks = 32 of
// 48 warps = 66.67%. All below 75%.
#[occupancy::check(kernel = "k_regs", block = 256, target = ["sm_80", "sm_86", "sm_90"], min_occupancy = 75%)]
fn launch_regs() {}

fn main() {
    launch_regs();
}
