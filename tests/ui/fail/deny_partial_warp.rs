#[occupancy::check(block = 100, regs = 32, target = "sm_90", deny(partial_warp))]
fn launch_odd() {}

fn main() {
    launch_odd();
}
