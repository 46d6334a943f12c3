// `OCCUPANCY_POLICY=/dev/zero`: refused before a byte is read (it was read until memory ran
// out: 2.1 GB in rustc), as outside the crate.
#[occupancy::check(block = 256, regs = 32)]
fn launch() {}

fn main() {
    launch();
}
