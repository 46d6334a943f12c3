// A run-time block whose dynamic shared memory is computed from it: candidates for the
// block give both, so there is one error, on the block, saying so (no `smem` advice,
// which would lead to drift). Where the shared memory also depends on another run-time
// value, `block` candidates do not give it: its own error names what is left (`cols`).
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_per_thread(n: u32, block: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_per_thread_and_column(n: u32, block: u32, cols: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * cols });
}

fn main() {
    launch_per_thread(1, 128);
    launch_per_thread_and_column(1, 128, 4);
}
