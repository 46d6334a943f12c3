const BLOCK: u32 = 2048;
const TILE_THREADS: u32 = 512;

#[occupancy::check(block = BLOCK, regs = 32, target = "sm_90")]
fn launch_huge() {}

// 512 threads fit the device, not the kernel's __launch_bounds__(256).
#[occupancy::check(block = TILE_THREADS, regs = 32, max_threads = 256, target = "sm_90")]
fn launch_over_bounds() {}

fn main() {
    launch_huge();
    launch_over_bounds();
}
