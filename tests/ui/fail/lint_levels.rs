#[occupancy::check(block = 256, regs = 32, allow(low_ocupancy), deny(foo))]
fn launch_unknown() {}

#[occupancy::check(block = 256, regs = 32, allow(low_occupancy), deny(low_occupancy))]
fn launch_twice() {}

// launch_impossible is always an error.
#[occupancy::check(block = 2048, regs = 32, allow(launch_impossible))]
fn launch_allow_impossible() {}

#[occupancy::check(block = 2048, regs = 32, warn(launch_impossible))]
fn launch_warn_impossible() {}

fn main() {
    launch_unknown();
    launch_twice();
    launch_allow_impossible();
    launch_warn_impossible();
}
