// k_cluster is compiled with __cluster_dims__(2, 1, 1): a launch cannot pick another shape.
#[occupancy::check(kernel = "k_cluster", block = 128, cluster = 4, grid = 264, target = "H200")]
fn launch_other_cluster() {}

fn main() {
    launch_other_cluster();
}
