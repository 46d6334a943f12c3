#![deny(warnings)]

// sm_80 and sm_90 (the built-in default targets): 256 threads, 32 regs -> 1024 per warp ->
// 16 warps per sub-partition -> 64 warps = 8 blocks: 100%.
#[occupancy::check(block = 256, regs = 32)]
fn launch_saxpy(n: u32) -> u32 {
    n.div_ceil(256)
}

fn main() {
    assert_eq!(launch_saxpy(1000), 4);
}
