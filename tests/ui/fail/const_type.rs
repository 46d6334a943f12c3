const BLOCK: usize = 256;

// Constants are u32: the compiler says so on the user's token.
#[occupancy::check(block = BLOCK, regs = 32, target = "sm_90")]
fn launch() {}

fn main() {
    launch();
}
