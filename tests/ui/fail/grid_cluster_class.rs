#[occupancy::check(block = 256, regs = 32, grid = (0, 4))]
fn launch_empty_grid() {}

#[occupancy::check(block = 256, regs = 32, grid = (1, 2, 3, 4))]
fn launch_4d_grid() {}

#[occupancy::check(block = 256, regs = 32, grid = "1024")]
fn launch_string_grid() {}

#[occupancy::check(block = 256, regs = 32, grid = 5000000000)]
fn launch_huge_grid() {}

#[occupancy::check(block = 256, regs = 32, cluster = 2, target = ["sm_80", "H100", "RTX 4090"])]
fn launch_cluster_ampere() {}

#[occupancy::check(block = 256, regs = 32, cluster = (8, 4), target = "sm_90")]
fn launch_cluster_32() {}

#[occupancy::check(block = 256, regs = 32, cluster = 16, target = "sm_120")]
fn launch_cluster_unknown_max() {}

const CLUSTER: u32 = 2;

#[occupancy::check(block = 256, regs = 32, cluster = CLUSTER, target = "sm_90")]
fn launch_cluster_const() {}

#[occupancy::check(block = 256, regs = 32, cluster = (0, 2), target = "sm_90")]
fn launch_cluster_zero() {}

#[occupancy::check(block = 256, regs = 32, class = "memory")]
fn launch_class_typo() {}

#[occupancy::check(block = 256, regs = 32, class = "latency_bound")]
fn launch_class_unknown() {}

#[occupancy::check(block = 256, regs = 32, class = memory_bound)]
fn launch_class_ident() {}

#[occupancy::check(block = 256, regs = 32, gird = 1024, clustr = 2, clas = "balanced")]
fn launch_typos() {}

fn main() {
    launch_empty_grid();
    launch_4d_grid();
    launch_string_grid();
    launch_huge_grid();
    launch_cluster_ampere();
    launch_cluster_32();
    launch_cluster_unknown_max();
    launch_cluster_const();
    launch_cluster_zero();
    launch_class_typo();
    launch_class_unknown();
    launch_class_ident();
    launch_typos();
}
