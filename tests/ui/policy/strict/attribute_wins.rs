#![deny(deprecated)]

// The attribute lowers the policy's deny to warn for this wrapper: a warning (made an error
// here by `deny(deprecated)` so that its text is snapshotted).
#[occupancy::check(block = 256, regs = 48, warn(low_occupancy))]
fn launch() {}

fn main() {
    launch();
}
