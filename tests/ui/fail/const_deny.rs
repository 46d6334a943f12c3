const REGS: u32 = 96;
const WIDTH: u32 = 100;

#[occupancy::check(block = 256, regs = REGS, target = "sm_90", deny(low_occupancy))]
fn launch_sgemm() {}

#[occupancy::check(block = WIDTH, regs = 32, target = "sm_90", deny(partial_warp))]
fn launch_odd() {}

fn main() {
    launch_sgemm();
    launch_odd();
}
