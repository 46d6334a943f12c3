#![deny(warnings)]

// `Self::` constants, in the attribute and in the body: read from the impl, and confirmed
// by the compiler in an inline `const { }` in the body (items cannot name `Self`).
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

fn launch(_: LaunchConfig) {}

struct Gemm;

impl Gemm {
    const TILE: u32 = 16;

    #[occupancy::check(block = (Self::TILE, Self::TILE), regs = 32, target = "sm_90")]
    fn launch_keyed(&self) {}

    #[occupancy::check(block = (Gemm::TILE, Gemm::TILE), regs = 32, target = "sm_90")]
    fn launch_named(&self) {}

    #[occupancy::check(regs = 32, target = "sm_90")]
    fn launch_body(&self, n: u32) {
        launch(LaunchConfig {
            grid_dim: (n.div_ceil(Self::TILE), 1, 1),
            block_dim: (Self::TILE, Self::TILE, 1),
            shared_mem_bytes: Self::TILE * Self::TILE * 4,
        });
    }
}

fn main() {
    Gemm.launch_keyed();
    Gemm.launch_named();
    Gemm.launch_body(1000);
}
