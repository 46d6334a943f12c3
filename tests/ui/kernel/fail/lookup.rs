// Not in the manifest: the closest name and every kernel with its targets.
#[occupancy::check(kernel = "k_regz", block = 256)]
fn launch_misspelled() {}

// k_cluster exists for sm_90 only: an error on each target that has no cubin.
#[occupancy::check(kernel = "k_cluster", block = 128, target = ["sm_75", "sm_80", "sm_90"])]
fn launch_cluster() {}

// Targets from the policy (sm_80 and sm_90): the error goes on the kernel.
#[occupancy::check(kernel = "k_maxcluster", block = 128)]
fn launch_default_targets() {}

fn main() {
    launch_misspelled();
    launch_cluster();
    launch_default_targets();
}
