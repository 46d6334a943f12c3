#[occupancy::check]
fn launch_nothing() {}

#[occupancy::check(target = "sm_90")]
fn launch_no_block() {}

#[occupancy::check(block = 256)]
fn launch_no_regs() {}

fn main() {
    launch_nothing();
    launch_no_block();
    launch_no_regs();
}
