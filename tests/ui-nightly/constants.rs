// Constants on the nightly backend. One the attribute reads from the crate's sources
// (`REGS`): the compiler confirms its value and the warning has the numbers. One it cannot
// read (`MADE`, an item a macro makes): checked by the compiler in a `const` item, where a
// warned lint is a use of a deprecated function (rustc's `deprecated` lint, which
// `#![deny(deprecated)]` makes an error here), without the numbers.
#![deny(deprecated)]

const REGS: u32 = 96;

macro_rules! made {
    () => {
        const MADE: u32 = 96;
    };
}
made!();

#[occupancy::check(block = 256, regs = REGS, target = "sm_90")]
fn launch_sgemm() {}

#[occupancy::check(block = 256, regs = MADE, target = "sm_90")]
fn launch_made() {}

fn main() {
    launch_sgemm();
    launch_made();
}
