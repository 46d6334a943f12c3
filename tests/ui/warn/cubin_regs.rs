#![deny(deprecated)]

// k_regs in the sm_80 cubin: 52 regs -> 52 x 32 = 1664, rounded to 1792 per warp -> 16384
// / 1792 = 9 warps per sub-partition x 4 = 36 warps / 8 per block = 4 blocks = 32 of 64
// warps = 50% < 60%.
#[occupancy::check(
    cubin = "fixtures/probe.sm_80.cubin",
    kernel = "k_regs",
    block = 256,
    target = "sm_80",
    min_occupancy = 60%,
)]
fn launch_regs() {}

fn main() {
    launch_regs();
}
