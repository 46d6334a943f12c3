pub struct LaunchConfig { pub grid_dim: (u32, u32, u32), pub block_dim: (u32, u32, u32), pub shared_mem_bytes: u32 }
pub struct Stream;
impl Stream { pub fn launch(&self, _: LaunchConfig) {} }
pub enum DType { F16, F32 }
mod consts;
pub struct Tiling { pub threads: u32, pub smem: u32 }
pub fn tiling(wide: bool) -> Tiling { if wide { Tiling { threads: 1024, smem: 49152 } } else { Tiling { threads: 32, smem: 128 } } }
pub fn next_pow2(x: usize) -> usize { let mut n = 1; while n < x { n *= 2; } n }
#[occupancy::check(regs = 32, target = "sm_80")]
pub fn tuple(s: &Stream, dtype: DType, rows: u32) {
    let (block, warps) = match dtype { DType::F16 => (32, 1), _ => (128, 4) };
    s.launch(LaunchConfig { grid_dim: (rows, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: warps * 128 });
}
#[occupancy::check(regs = 32, target = "sm_86", min_occupancy = 75%)]
pub fn ranges(s: &Stream, n: u32, ncols: u32, wide: bool) {
    if ncols > consts::MAX_COLS { return; }
    let pad = ncols.next_power_of_two();
    let t = tiling(wide);
    let mut b = 32;
    while b < n && b < 1024 { b *= 2; }
    let cfg = if wide { LaunchConfig { grid_dim: (1, n, 1), block_dim: (pad.min(1024), 1, 1), shared_mem_bytes: pad * 4 } } else { LaunchConfig { grid_dim: (n.div_ceil(b), 1, 1), block_dim: (b, 1, 1), shared_mem_bytes: t.smem } };
    s.launch(cfg);
}
#[occupancy::check(regs = 32, target = "sm_80", block = [32, 1024])]
pub fn keyed(s: &Stream, n: u32, threads: u32) {
    let g = next_pow2(n as usize) as u32;
    s.launch(LaunchConfig { grid_dim: (g, 1, 1), block_dim: (threads, 1, 1), shared_mem_bytes: threads * 4 });
}
//--consts.rs--
pub const MAX_COLS: u32 = 8192;
