#![deny(deprecated)]

// 96 regs -> 2 blocks of 8 warps = 16 warps: of 48 on the RTX 4090 (sm_89, 33.33%), of
// 64 on the A100 (sm_80, 25%).
#[occupancy::check(block = 256, regs = 96, target = ["RTX 4090", "A100"])]
fn launch_gemm() {}

fn main() {
    launch_gemm();
}
