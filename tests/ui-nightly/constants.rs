// Values given as constants are checked by the compiler in a `const` item, on both
// backends alike: a warned lint stays a use of a deprecated function (rustc's `deprecated`
// lint, which `#![deny(deprecated)]` makes an error here), without the numbers.
#![deny(deprecated)]

const REGS: u32 = 96;

#[occupancy::check(block = 256, regs = REGS, target = "sm_90")]
fn launch_sgemm() {}

fn main() {
    launch_sgemm();
}
