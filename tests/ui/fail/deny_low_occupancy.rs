#[occupancy::check(block = (16, 16), regs = 96, target = "sm_90", deny(low_occupancy))]
fn launch_sgemm() {}

fn main() {
    launch_sgemm();
}
