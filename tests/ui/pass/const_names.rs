#![deny(warnings)]

// User constants named like the check's own items do not collide with them.
const RESULT: u32 = 256;
const CHECK: u32 = 32;

#[allow(non_upper_case_globals)]
const Check: u32 = 1;

#[occupancy::check(block = RESULT, regs = CHECK, barriers = Check, target = "sm_90")]
fn launch() {}

// rustc's allow silences a const-evaluated warning as well.
const REGS: u32 = 96;
#[allow(deprecated)]
#[occupancy::check(block = 256, regs = REGS, target = "sm_90")]
fn launch_allowed() {}

fn main() {
    launch();
    launch_allowed();
}
