// 255 regs -> 8160 rounded to 8192 per warp x 32 warps = 262144 > 65536 per block.
#[occupancy::check(block = 1024, regs = 255, target = "sm_90")]
fn launch_fat() {}

// More registers per thread than any architecture allows.
#[occupancy::check(block = 32, regs = 300, target = "sm_80")]
fn launch_fatter() {}

fn main() {
    launch_fat();
    launch_fatter();
}
