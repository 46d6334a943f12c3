#[occupancy::check(block = 256, regs = 32, target = ["sm_95", "H1000", "RTX 4900", "sm_90", "9.0"])]
fn launch() {}

#[occupancy::check(block = 256, regs = 32, target = "")]
fn launch_empty() {}

fn main() {
    launch();
    launch_empty();
}
