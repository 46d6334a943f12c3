// Policy: sm_90, 75% floor, low_occupancy denied. 48 regs -> 1536 per warp -> 10 warps per
// sub-partition -> 40 / 8 = 5 blocks = 40 of 64 warps = 62.5%: an error.
#[occupancy::check(block = 256, regs = 48)]
fn launch() {}

fn main() {
    launch();
}
