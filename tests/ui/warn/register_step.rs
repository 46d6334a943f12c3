#![deny(deprecated)]

// sm_80, 256 threads: 41 regs -> 1312 rounded up to 1536 per warp -> 5 blocks (62.5%);
// 40 regs -> 1280 -> 6 blocks (75%). Above the 50% floor, yet one register from a block.
#[occupancy::check(block = 256, regs = 41, target = "sm_80")]
fn launch_stencil() {}

// 40 regs sit on a step: silent.
#[occupancy::check(block = 256, regs = 40, target = "sm_80", allow(low_occupancy))]
fn launch_on_the_step() {}

fn main() {
    launch_stencil();
    launch_on_the_step();
}
