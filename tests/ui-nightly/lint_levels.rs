// How the nightly warnings meet rustc's lint levels: they are not lints. Neither
// `#![deny(warnings)]` nor `#[allow(deprecated)]` / `#[allow(warnings)]` changes them:
// both warnings below are printed as warnings. The attribute's own `allow(...)` (and
// `occupancy.toml` `[lints]`) is what silences a finding: `launch_allowed` prints nothing.
#![deny(warnings)]

#[allow(deprecated)]
#[occupancy::check(block = 256, regs = 96, target = "sm_90")]
fn launch_allow_deprecated() {}

#[allow(warnings)]
#[occupancy::check(block = 100, regs = 32, target = "sm_90")]
fn launch_allow_warnings() {}

#[occupancy::check(block = 100, regs = 96, target = "sm_90", allow(low_occupancy, partial_warp))]
fn launch_allowed() {}

fn main() {
    launch_allow_deprecated();
    launch_allow_warnings();
    launch_allowed();
}

::core::compile_error!("end of the case: the two warnings above, nothing from launch_allowed");
