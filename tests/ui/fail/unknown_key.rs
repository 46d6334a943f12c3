#[occupancy::check(blok = 256, regs = 32, min_ocupancy = 50%, shared = 4, x = 1)]
fn launch() {}

fn main() {
    launch();
}
