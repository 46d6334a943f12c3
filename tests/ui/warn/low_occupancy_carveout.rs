#![deny(deprecated)]

// sm_90: a 10% carveout preference = 23347 B -> the 32 KiB carveout; 8 KiB dynamic + 1 KiB
// reserved = 9 KiB per block -> 3 blocks = 24 of 64 warps = 37.5%.
#[occupancy::check(block = 256, regs = 32, smem = 8 KiB, carveout = 10%, target = "sm_90")]
fn launch_l1_heavy() {}

fn main() {
    launch_l1_heavy();
}
