// A function whose launch the reader does not see (its configuration comes from a method):
// the error says that no launch was found, what the reader looks for, and that keys can
// describe a launch made elsewhere.
struct Launcher;

impl Launcher {
    fn block(&self) -> u32 {
        256
    }
}

#[occupancy::check(regs = 32)]
fn launch_elsewhere(launcher: &Launcher) -> u32 {
    launcher.block()
}

fn main() {
    launch_elsewhere(&Launcher);
}
