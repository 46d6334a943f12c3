#[occupancy::check(block = 256, regs = 32)]
struct Launch;

trait Launcher {
    #[occupancy::check(block = 256, regs = 32)]
    fn launch(&self);
}

fn main() {
    let _ = Launch;
}
