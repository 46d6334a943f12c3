// Clusters over the portable 8 blocks need CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
// which the wrapper declares with `non_portable = true`.
#[occupancy::check(block = 128, regs = 32, cluster = 12, target = "H200")]
fn launch_cluster_12() {}

#[occupancy::check(block = 128, regs = 32, cluster = (3, 3), non_portable = false, target = "sm_90")]
fn launch_cluster_9_not_allowed() {}

// Allowed, but over cc 9.0's 16.
#[occupancy::check(block = 128, regs = 32, cluster = 17, non_portable = true, target = "H200")]
fn launch_cluster_17() {}

// `non_portable` is about clusters, and takes a bool.
#[occupancy::check(block = 128, regs = 32, non_portable = true, target = "H200")]
fn launch_no_cluster() {}

#[occupancy::check(block = 128, regs = 32, cluster = 9, non_portable = 1, target = "H200")]
fn launch_not_a_bool() {}

#[occupancy::check(block = 128, regs = 32, cluster = 9, non_portable = true, non_portable = true, target = "H200")]
fn launch_twice() {}

fn main() {
    launch_cluster_12();
    launch_cluster_9_not_allowed();
    launch_cluster_17();
    launch_no_cluster();
    launch_not_a_bool();
    launch_twice();
}
