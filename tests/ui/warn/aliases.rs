#![deny(deprecated)]

// Three names of one architecture (cc 8.9) give one warning naming all three.
#[occupancy::check(block = 32, regs = 32, target = ["sm_89", "RTX 4090", "L4"], min_occupancy = 75%)]
fn launch() {}

fn main() {
    launch();
}
