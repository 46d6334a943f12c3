#![deny(deprecated)]

// sm_86, 128 threads, 50496 B dynamic + 1 KiB reserved -> 51584 B per block: 1 block in
// 100 KiB. 320 B less (50176 B) fits 2. Low occupancy is allowed: the step is the point.
#[occupancy::check(block = 128, regs = 32, smem = 50496, opt_in = 99 KiB, target = "sm_86", allow(low_occupancy))]
fn launch_tile() {}

fn main() {
    launch_tile();
}
