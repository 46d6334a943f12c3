#![deny(deprecated)]

const TILE: u32 = 10;

#[occupancy::check(block = (TILE, TILE), regs = 32, target = "sm_90")]
fn launch_odd() {}

fn main() {
    launch_odd();
}
