const BLOCK: u32 = 2048;

#[occupancy::check(block = BLOCK, regs = 32, target = "sm_90")]
fn launch_huge() {}

fn main() {
    launch_huge();
}
