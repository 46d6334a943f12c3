struct Gemm;

impl Gemm {
    const TILE: u32 = 16;

    // `Self` is not available where the check runs: an error that says what to write.
    #[occupancy::check(block = (Self::TILE, Self::TILE), regs = 32)]
    fn launch(&self) {}

    // The type's name works.
    #[occupancy::check(block = (Gemm::TILE, Gemm::TILE), regs = 32)]
    fn launch_named(&self) {}
}

fn main() {
    Gemm.launch();
    Gemm.launch_named();
}
