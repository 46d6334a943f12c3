#![deny(warnings)]

// Every key, all literal. sm_90: 128 threads = 4 warps; 32 regs -> 1024 per warp -> 16
// warps per sub-partition -> 64 / 4 = 16 blocks; 4 KB static + 8 KiB dynamic + 1 KiB
// reserved = 13 KiB per block, 100% carveout = 228 KiB / 13 KiB = 17 blocks; 2 barriers:
// 64 / 2 = 32. 16 blocks x 4 warps = 64 warps = 100%.
#[occupancy::check(
    block = (16, 8, 1),
    smem = 8 KiB,
    regs = 32,
    static_smem = 4 KB,
    opt_in = 100 KiB,
    carveout = 100%,
    barriers = 2,
    max_threads = 256,
    target = ["sm_90", "H100", "sm_90a"],
    min_occupancy = 0.75,
    warn(low_occupancy),
    deny(partial_warp),
    deny(launch_impossible),
)]
fn launch_all() {}

// Bytes in every spelling.
#[occupancy::check(block = 64, regs = 16, smem = 512 B, static_smem = 1.5 KiB, opt_in = 65536u32)]
fn launch_units() {}

#[occupancy::check(block = 64, regs = 16, smem = 2KiB, carveout = 0.5, min_occupancy = 12.5%)]
fn launch_suffix() {}

fn main() {
    launch_all();
    launch_units();
    launch_suffix();
}
