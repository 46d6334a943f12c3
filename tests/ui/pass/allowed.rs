#![deny(warnings)]

// 96 regs: 25% on the default targets, and 100 threads: a partial warp. Both allowed here.
#[occupancy::check(block = 100, regs = 96, allow(low_occupancy, partial_warp))]
fn launch_allowed() {}

// rustc's own allow also silences the warnings (it hides real deprecations too).
#[allow(deprecated)]
#[occupancy::check(block = 100, regs = 96)]
fn launch_allowed_by_rustc() {}

// A zero floor never fires.
#[occupancy::check(block = 256, regs = 128, min_occupancy = 0%)]
fn launch_no_floor() {}

fn main() {
    launch_allowed();
    launch_allowed_by_rustc();
    launch_no_floor();
}
