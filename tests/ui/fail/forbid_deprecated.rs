// A crate that forbids `deprecated` gets the warning as an error, and no E0453 (the macro
// never generates `#[allow(deprecated)]`).
#![forbid(deprecated)]

#[occupancy::check(block = 256, regs = 96, target = "sm_90")]
fn launch() {}

fn main() {
    launch();
}
