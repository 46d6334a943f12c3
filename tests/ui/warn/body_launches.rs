#![deny(deprecated)]

// A wrapper with several launches checks each; cust's `launch!` is read too.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

struct Builder;
impl Builder {
    fn launch(&self, _: LaunchConfig) {}
}

macro_rules! launch {
    ($($tokens:tt)*) => {};
}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_two_pass(b: &Builder, n: u32) {
    let partial = LaunchConfig { grid_dim: (n, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let merge = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (48, 1, 1), shared_mem_bytes: 0 };
    b.launch(partial);
    b.launch(merge);
}

#[occupancy::check(regs = 32, target = "sm_90")]
fn launch_cust(n: u32) {
    let _ = n;
    launch!(module.sum<<<n, (4, 4), 0, stream>>>(n));
}

fn main() {
    launch_two_pass(&Builder, 10);
    launch_cust(10);
}
