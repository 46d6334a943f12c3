// 64 KiB of dynamic shared memory without the opt-in: over the 48 KiB default.
#[occupancy::check(block = 256, regs = 32, smem = 64 KiB, target = ["sm_90", "sm_75"])]
fn launch_no_opt_in() {}

// The opt-in is set, but to less than the launch uses.
#[occupancy::check(block = 256, regs = 32, smem = 64 KiB, opt_in = 32 KiB, target = "sm_90")]
fn launch_small_opt_in() {}

// The opt-in itself is over sm_90's 227 KiB.
#[occupancy::check(block = 256, regs = 32, opt_in = 240 KiB, target = "sm_90")]
fn launch_opt_in_over() {}

// Static shared memory over 48 KiB.
#[occupancy::check(block = 256, regs = 32, static_smem = 50 KiB, target = "sm_80")]
fn launch_static_over() {}

// ... whatever the dynamic opt-in: ptxas does not compile it.
#[occupancy::check(block = 256, regs = 32, static_smem = 51584, opt_in = 64 KiB, target = "sm_86")]
fn launch_static_over_opted_in() {}

fn main() {
    launch_no_opt_in();
    launch_small_opt_in();
    launch_opt_in_over();
    launch_static_over();
    launch_static_over_opted_in();
}
