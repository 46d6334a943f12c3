#[occupancy::check(
    block = "256",
    regs = 4.5,
    target = sm_90,
    smem = true,
    min_occupancy = "50%",
    carveout = 50,
    kernel = 3,
    barriers = [1],
    allow = low_occupancy,
)]
fn launch() {}

fn main() {
    launch();
}
