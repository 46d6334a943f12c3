// Each wrapper reads the policy: one error each, naming the file as written and where it
// was looked for (the wrappers give their registers: no manifest is read).
#[occupancy::check(block = 256, regs = 32)]
fn launch_a() -> u32 {
    1
}

#[occupancy::check(block = 128, regs = 32)]
fn launch_b() -> u32 {
    2
}

fn main() {
    // The wrappers are still emitted: no follow-on error here.
    assert_eq!(launch_a() + launch_b(), 3);
}
