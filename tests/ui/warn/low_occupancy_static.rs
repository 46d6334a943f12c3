#![deny(deprecated)]

// As low_occupancy_smem.rs, with the 40 KiB static: the warning points at `static_smem`.
#[occupancy::check(block = 128, regs = 32, static_smem = 40 KiB, target = "sm_90")]
fn launch_stencil() {}

fn main() {
    launch_stencil();
}
