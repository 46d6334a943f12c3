#![deny(deprecated)]

// sm_90, 128 threads = 4 warps: 40 KiB dynamic + 1 KiB reserved = 41 KiB per block ->
// 228 KiB / 41 KiB = 5 blocks = 20 of 64 warps = 31.25%. 50% = 32 warps = 8 blocks:
// 233472 / 8 = 29184 per block - 1024 reserved = 28160 B of dynamic shared memory.
#[occupancy::check(block = 128, regs = 32, smem = 40 KiB, target = "sm_90")]
fn launch_stencil() {}

fn main() {
    launch_stencil();
}
