#![deny(deprecated)]

// The body loads its kernel by a literal name: it stands in for `kernel`.
struct Module;
impl Module {
    fn load_function(&self, _: &str) -> u32 {
        0
    }
}

struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: u32, _: LaunchConfig) {}

#[occupancy::check(target = ["sm_80", "sm_90"], min_occupancy = 75%)]
fn launch_regs(module: &Module, n: u32) {
    let f = module.load_function("k_regs");
    launch(f, LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_regs(&Module, 10);
}
