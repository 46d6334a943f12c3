#![deny(deprecated)]

// Each path launches its own kernel with its own block: k_regs (52 registers on sm_80) with
// 256 threads, k_plain (10) with 64. Each kernel is checked with its own path's launch only.
struct Module;
impl Module {
    fn load_function(&self, _: &str) -> Function {
        Function
    }
}

struct Function;
impl Function {
    fn launch(&self, _: LaunchConfig) {}
}

struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

#[occupancy::check(target = "sm_80", min_occupancy = 75%)]
fn launch_per_dtype(module: &Module, n: u32, wide: bool) {
    let (f, threads) = if wide {
        (module.load_function("k_regs"), 256)
    } else {
        (module.load_function("k_plain"), 64)
    };
    f.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    launch_per_dtype(&Module, 10, true);
}
