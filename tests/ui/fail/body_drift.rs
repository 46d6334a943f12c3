// A key that states another value than the body launches is an error on both spans: the
// attribute must check the launch the body makes.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

impl LaunchConfig {
    fn for_num_elems(n: u32) -> Self {
        LaunchConfig { grid_dim: (n.div_ceil(1024), 1, 1), block_dim: (1024, 1, 1), shared_mem_bytes: 0 }
    }
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(block = 256, regs = 32, target = "sm_90")]
fn launch_block(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(block = 256, regs = 32, target = "sm_90")]
fn launch_elems(n: u32) {
    launch(LaunchConfig::for_num_elems(n));
}

#[occupancy::check(smem = 4 KiB, grid = 64, regs = 32, target = "sm_90")]
fn launch_smem_grid() {
    launch(LaunchConfig { grid_dim: (128, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 8192 });
}

#[occupancy::check(block = [32, 64], regs = 32, target = "sm_90")]
fn launch_arms(n: u32) {
    let b = if n > 100 { 32 } else { 1024 };
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_block(1);
    launch_elems(1);
    launch_smem_grid();
    launch_arms(1);
}
