#![deny(deprecated)]

struct Gemm;

impl Gemm {
    #[occupancy::check(block = 256, regs = 96, target = "sm_90")]
    fn launch(&self) -> u32 {
        1
    }
}

fn main() {
    assert_eq!(Gemm.launch(), 1);
}
