#![deny(warnings)]

struct Gemm {
    tiles: u32,
}

impl Gemm {
    #[occupancy::check(block = (16, 16), regs = 64, static_smem = 8 KiB, target = "sm_90")]
    fn launch(&self) -> u32 {
        self.tiles * 256
    }

    #[occupancy::check(block = 128, regs = 32, target = ["sm_80", "sm_90"])]
    pub fn launch_generic<T: Copy + Into<u64>>(&mut self, n: T) -> u64 {
        n.into() + u64::from(self.tiles)
    }

    #[occupancy::check(block = 256, regs = 40)]
    fn associated() -> u32 {
        7
    }
}

trait Launcher {
    fn go(&self) -> u32;
}

impl Launcher for Gemm {
    #[occupancy::check(block = 512, regs = 32)]
    fn go(&self) -> u32 {
        self.tiles
    }
}

fn main() {
    let mut g = Gemm { tiles: 2 };
    assert_eq!(g.launch(), 512);
    assert_eq!(g.launch_generic(3u32), 5);
    assert_eq!(Gemm::associated(), 7);
    assert_eq!(g.go(), 2);
}
