// k_bounds is compiled with __launch_bounds__(256, 2): 512 threads per block cannot launch.
#[occupancy::check(
    fatbin = "fixtures/probe.fatbin",
    kernel = "k_bounds",
    block = 512,
    target = ["sm_80", "sm_90"],
)]
fn launch_too_wide() {}

// The same with the block as a constant: the compiler evaluates the check.
const BLOCK: u32 = 512;

#[occupancy::check(fatbin = "fixtures/probe.fatbin", kernel = "k_bounds", block = BLOCK, target = "sm_90")]
fn launch_too_wide_const() {}

fn main() {
    launch_too_wide();
    launch_too_wide_const();
}
