#![deny(deprecated)]

// Run-time choices between literal sizes: the arms are the candidates, each checked; a
// finding names the one it is about. A value only the data decides takes candidates from
// the attribute.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_softmax(rows: u32, n_cols: u32) {
    let block_size = if n_cols < 1024 { 32 } else { 1024 };
    launch(LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (block_size, 1, 1), shared_mem_bytes: 0 });
}

enum DType {
    F32,
    F16,
}

#[occupancy::check(regs = 64, target = "sm_90", min_occupancy = 75%)]
fn launch_cast(n: u32, dtype: DType) {
    let threads = match dtype {
        DType::F32 => 256,
        DType::F16 => 512,
    };
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: threads * 4 });
}

#[occupancy::check(regs = 32, block = [64, 256], target = "sm_86", min_occupancy = 75%)]
fn launch_tuned(n: u32, block: u32) {
    launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_softmax(10, 100);
    launch_cast(10, DType::F32);
    launch_cast(10, DType::F16);
    launch_tuned(10, 64);
}
