const REGS: u32 = 48;

#[occupancy::check(block = 256, regs = REGS)]
fn launch() {}

fn main() {
    launch();
}
