// Candidates for a block and a dynamic shared memory that are both known only at run time
// are never crossed: two lists of several values each are an error at the launch saying
// how to give pairs (`launches`), and `launches` beside `block` / `smem` is an error on it.
// A pair that disagrees with a value the body states is drift.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90", block = [32, 1024], smem = [128, 4 KiB, 64 KiB])]
fn launch_crossed(n: u32, threads: u32, bytes: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = "sm_90", smem = [4 KiB], launches = [(32, 128)])]
fn launch_both(n: u32, threads: u32, bytes: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = "sm_90", launches = [(32, 128), (64 4096)])]
fn launch_malformed(n: u32, threads: u32, bytes: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: bytes });
}

#[occupancy::check(regs = 32, target = "sm_90", launches = [(256, 0)])]
fn launch_drift(n: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_crossed(1, 32, 128);
    launch_both(1, 32, 128);
    launch_malformed(1, 32, 128);
    launch_drift(1);
}
