#[occupancy::check(
    block = (0, 16),
    regs = 5000000000,
    barriers = 17,
    max_threads = 2048,
    carveout = 150%,
    min_occupancy = 120%,
    smem = 1.3 KiB,
    opt_in = 4194304 KiB,
    static_smem = -1,
)]
fn launch() {}

#[occupancy::check(block = 256, regs = 32, min_occupancy = 12.345%, carveout = 12.5%, max_threads = 0)]
fn launch_fractions() {}

fn main() {
    launch();
    launch_fractions();
}
