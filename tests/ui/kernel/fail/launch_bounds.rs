// k_bounds: __launch_bounds__(256, 2). 384 threads exceed the bounds on every target.
#[occupancy::check(kernel = "k_bounds", block = (128, 3), target = ["sm_80", "sm_90"])]
fn launch_too_wide() {}

// `max_threads` given in the attribute overrides the manifest's 256.
#[occupancy::check(kernel = "k_bounds", block = 384, max_threads = 512, target = "sm_90")]
fn launch_raised() {}

fn main() {
    launch_too_wide();
    launch_raised();
}
