// An error about a value the body states points at the whole expression that states it
// (`64 * 1024`, `SMEM_KIB * 1024 + 256`), not at its first token.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

const SMEM_KIB: u32 = 64;

#[occupancy::check(regs = 32, target = "sm_75")]
fn launch_literal() {
    launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 64 * 1024 });
}

#[occupancy::check(regs = 32, target = "sm_80")]
fn launch_constant() {
    launch(LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: SMEM_KIB * 1024 + 256,
    });
}

fn main() {
    launch_literal();
    launch_constant();
}
