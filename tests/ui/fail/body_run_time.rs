// A block or dynamic shared memory known only at run time, with no finite set of values the
// reader can check, and no candidates, is an error at the body's expression saying how to
// give them and what bound is known (never a raw E0435 from generated code); a run-time grid
// is not.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_block(n: u32, threads: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 });
}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_smem(n: u32, cols: u32) {
    launch(LaunchConfig { grid_dim: (1, n, 1), block_dim: (256, 1, 1), shared_mem_bytes: cols * 4 });
}

// A bound the code states is said; candidates are still needed (4097 values).
#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_capped(n: u32, cols: u32) {
    let smem = cols.min(4096) * 4;
    launch(LaunchConfig { grid_dim: (1, n, 1), block_dim: (256, 1, 1), shared_mem_bytes: smem });
}

fn main() {
    launch_block(1, 32);
    launch_smem(1, 100);
    launch_capped(1, 100);
}
