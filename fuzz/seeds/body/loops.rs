pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
pub const WARP_SIZE: usize = 32;
pub const MAX_BLOCK: u32 = 1024;
#[occupancy::check(regs = 32, target = "sm_80")]
pub fn by_shift(s: &Stream, n: u32) {
    let mut block = 32;
    'outer: for shift in (6..=9).rev() {
        for k in (1..8).step_by(2) {
            if n < (1 << shift) * k { continue; }
            block = 1 << shift; break 'outer;
        }
    }
    for b in &[WARP_SIZE as u32 * 4, MAX_BLOCK] { if n <= *b { block = *b; } }
    s.launch(LaunchConfig { grid_dim: (n, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 });
}
