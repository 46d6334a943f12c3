// 64 x 32 = 2048 threads: over the 1024 every architecture allows.
#[occupancy::check(block = (64, 32), regs = 32, target = "sm_90")]
fn launch_huge() {}

// z over 64.
#[occupancy::check(block = (1, 1, 128), regs = 32, target = "sm_90")]
fn launch_deep() {}

// 512 threads, but the kernel was compiled with __launch_bounds__(256).
#[occupancy::check(block = 512, regs = 32, max_threads = 256, target = "sm_90")]
fn launch_bounded() {}

fn main() {
    launch_huge();
    launch_deep();
    launch_bounded();
}
