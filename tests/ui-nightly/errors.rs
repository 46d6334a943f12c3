// Front-end errors are the same on both backends: one per problem, on its token.
#[occupancy::check(blok = 256, regs = 32, target = "sm_95")]
fn launch() {}

fn main() {
    launch();
}
