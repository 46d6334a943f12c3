#![deny(deprecated)]

// k_cluster is compiled for sm_90 only: on sm_80 it is not part of the family, which is
// k_regs alone there (its finding says which member was left out); on sm_90 both are
// checked, and only k_regs falls below the floor.
#[occupancy::check(kernel = ["k_regs", "k_cluster"], block = 256, target = ["sm_80", "sm_90"], min_occupancy = 75%, allow(register_step))]
fn launch_list() {}

// The same for a glob: k_c* is k_call, k_cluster and k_const; k_cluster is left out on
// sm_80 and sm_86 (whose sm_80 cubins the driver loads), named by compute capability.
#[occupancy::check(kernel = "k_c*", block = 32, target = ["sm_80", "RTX 3090", "sm_90"])]
fn launch_glob() {}

fn main() {
    launch_list();
    launch_glob();
}
