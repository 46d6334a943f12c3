#[occupancy::check(block = 256, regs = 32)]
fn launch() -> u32 {
    1
}

fn main() {
    // The wrapper is still emitted: no follow-on error here.
    assert_eq!(launch(), 1);
}
