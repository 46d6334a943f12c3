#![deny(deprecated)]

// A family of kernels: one diagnostic per lint and target lists the kernels it concerns,
// the worst first (here k_regs, 52 and 46 registers, under k_spill's 32).
#[occupancy::check(kernel = ["k_spill", "k_regs", "k_plain"], block = 256, target = ["sm_80", "sm_90"], min_occupancy = 75%, allow(register_spill, register_step))]
fn launch_list() {}

// A glob over the manifest's kernel names: k_bar16, k_bar4, k_bounds.
#[occupancy::check(kernel = "k_b*", block = 32, target = "sm_90", allow(launch_bounds_mismatch, barrier_limit))]
fn launch_glob() {}

fn main() {
    launch_list();
    launch_glob();
}
