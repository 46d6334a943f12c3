// A family with no member compiled for a target is an error on the `kernel` key: k_regs
// has sm_80 and sm_90 cubins, k_cluster an sm_90 one, and the driver loads neither on
// sm_75.
#[occupancy::check(kernel = ["k_regs", "k_cluster"], block = 256, target = ["sm_75", "sm_90"])]
fn launch_list() {}

// Both members of k_*cluster are compiled for sm_90 only: the policy's sm_80 has none.
#[occupancy::check(kernel = "k_*cluster", block = 128)]
fn launch_glob() {}

// A member that is not in the manifest at all is still an error, whatever the targets.
#[occupancy::check(kernel = ["k_regs", "k_clustr"], block = 256, target = "sm_90")]
fn launch_misspelled() {}

fn main() {
    launch_list();
    launch_glob();
    launch_misspelled();
}
