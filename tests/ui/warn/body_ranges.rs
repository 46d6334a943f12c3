#![deny(deprecated)]

// Run-time values with a finite range need no key: each value the code can launch is
// checked, the findings of one range reported together (the worst, the others in a note)
// with a note saying which values were checked.
struct LaunchConfig {
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: u32,
}

struct Stream;
impl Stream {
    fn launch(&self, _: LaunchConfig) {}
}

// 1, 2, 4, ..., 1024 threads, with 4 bytes of shared memory per thread.
#[occupancy::check(regs = 32, target = "sm_80", allow(block_limit))]
fn rows(s: &Stream, n: usize) {
    let block = usize::min(1024, n).next_power_of_two() as u32;
    s.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: block * 4 });
}

// A doubling loop: 32, 64, ..., 1024 threads.
#[occupancy::check(regs = 64, target = "sm_86", min_occupancy = 75%)]
fn doubling(s: &Stream, n: u32) {
    let mut b = 32;
    while b < n && b < 1024 {
        b *= 2;
    }
    s.launch(LaunchConfig { grid_dim: (n.div_ceil(b), 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: 0 });
}

fn main() {
    let s = Stream;
    rows(&s, 100);
    doubling(&s, 100);
}
