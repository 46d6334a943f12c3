// Constants the reader cannot evaluate stay on the compile-time path; its message says
// which name could not be read and why.
const REGS: u32 = core::mem::size_of::<[u32; 24]>() as u32;

#[occupancy::check(block = 256, regs = REGS, target = "sm_90", deny(low_occupancy))]
fn launch_sgemm() {}

fn main() {
    launch_sgemm();
}
