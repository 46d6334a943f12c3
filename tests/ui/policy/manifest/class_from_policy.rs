#![deny(deprecated)]

// The policy's class sets the floor (62.5%); the policy's manifest gives k_regs 52 regs on
// sm_80 (50%) and 46 on sm_90 (62.5%, at the floor). The policy's
// `register_step_max_drop = 2` keeps register_step quiet: 52 -> 48 is a drop of 4 (it
// fires with the default 4, see tests/ui/warn/cubin_regs.rs).
#[occupancy::check(kernel = "k_regs", block = 256, target = ["sm_80", "sm_90"])]
fn launch_regs() {}

// The attribute's class wins over the policy's: 25% floor.
#[occupancy::check(kernel = "k_regs", block = 256, target = "sm_80", class = "compute_bound")]
fn launch_compute() {}

fn main() {
    launch_regs();
    launch_compute();
}
