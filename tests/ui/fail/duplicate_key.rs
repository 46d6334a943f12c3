#[occupancy::check(block = 256, regs = 32, block = 128, regs = 40)]
fn launch() {}

fn main() {
    launch();
}
