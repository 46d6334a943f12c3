#![deny(deprecated)]

// The fatbin's cubins differ per target: k_regs has 52 regs on sm_80 (4 blocks = 50%) and
// 46 on sm_90 (46 x 32 = 1472 -> 1536 per warp -> 10 warps per sub-partition -> 40 / 8 = 5
// blocks = 62.5%); both below 75%, with their own numbers.
#[occupancy::check(
    fatbin = "fixtures/probe.fatbin",
    kernel = "k_regs",
    block = 256,
    target = ["sm_80", "sm_90"],
    min_occupancy = 75%,
)]
fn launch_regs() {}

fn main() {
    launch_regs();
}
